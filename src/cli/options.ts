// A command's options, read with node's parseArgs and refused in the bin's own words: an unknown
// option (with the nearest known one), an option without its value, a value given to a flag.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { forTerminal, UsageError } from './io.js';
import { nearest } from './suggest.js';

/** A command's options, as parseArgs takes them. */
export type Options = NonNullable<ParseArgsConfig['options']>;

/** One token of parseArgs' reading of the command line. */
type Token = NonNullable<ReturnType<typeof parseArgs>['tokens']>[number];

/** `--name`, as typed (`-x` for a short one), shown safely. */
const shown = (token: { rawName: string }): string => forTerminal(token.rawName.slice(0, 64));

/** The usage error of one token, or undefined when it is fine. */
function problemOf(token: Token, options: Options, positionals: boolean): string | undefined {
  if (token.kind === 'positional' && !positionals)
    return `unexpected argument ${forTerminal(JSON.stringify(token.value.slice(0, 64)))}`;
  if (token.kind !== 'option') return undefined;
  const option = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
  if (!option) {
    const near = nearest(
      token.rawName,
      Object.keys(options).map((name) => `--${name}`),
    );
    return `unknown option ${shown(token)}${near ? ` (did you mean ${near}?)` : ''}`;
  }
  if (option.type === 'boolean')
    return token.value === undefined ? undefined : `${shown(token)} takes no value`;
  if (token.value === undefined || token.value === '') return `${shown(token)} needs a value`;
  // `--schema --json`: the next option was taken for the value (node's parseArgs calls it ambiguous)
  if (!token.inlineValue && token.value.length > 1 && token.value.startsWith('-'))
    return `${shown(token)} needs a value (for one that starts with a dash, write ${shown(token)}=<value>)`;
  return undefined;
}

/**
 * Reads `args` with `options` as node's parseArgs does (strictly), after checking each token:
 * an unknown option, an option without its value (or an empty one), a value given to a flag, or
 * a positional where the command takes none is a {@link UsageError} saying so.
 */
export function parseOptions<const O extends Options>(
  args: string[],
  options: O,
  { positionals = true }: { positionals?: boolean } = {},
) {
  const { tokens } = parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    const problem = problemOf(token, options, positionals);
    if (problem) throw new UsageError(problem);
  }
  return parseArgs({ args, options, allowPositionals: true });
}
