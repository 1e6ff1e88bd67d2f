#!/usr/bin/env node
// The bin `messaging-gateway`: the commands for the service (send, channels, webhooks, v3) and for
// local development (fake-gateway, trigger, decode, replay). It loads nothing beyond the package
// and node's own modules, and a command's module only when that command runs.
import { GatewayValidationError } from '../core/errors.js';
import { VERSION } from '../version.js';
import { COMMANDS } from './commands.js';
import { helpOf } from './help.js';
import { stopRunning } from './interrupt.js';
import {
  addressesMasked,
  EXIT,
  exitQuietlyOnClosedOutput,
  forTerminal,
  type Io,
  isOutputClosed,
  jsonLine,
  processIo,
  UsageError,
} from './io.js';
import { nearest } from './suggest.js';

/**
 * The words of a command line that may be options: those before a `--`. After it every word is an
 * argument (`decode -- --help` reads a file named `--help`), so `--json` or `--help` there is not asked for.
 */
function optionWords(args: readonly string[]): readonly string[] {
  const end = args.indexOf('--');
  return end === -1 ? args : args.slice(0, end);
}

/** Whether `--json` was asked for: a failure then prints its JSON document too. */
const wantsJson = (args: readonly string[]): boolean => optionWords(args).includes('--json');

/** `messaging-gateway help [command [sub]]`: the help of the bin or of one command (options aside). */
function help(args: string[], io: Io): number {
  const topic = args.filter((word) => !word.startsWith('-'));
  const text = helpOf(topic);
  if (text !== undefined) {
    io.out(text);
    return EXIT.ok;
  }
  return unknownCommand(topic.join(' '), io, args);
}

/**
 * Prints a usage error and its way out (exit 2): with `--json` in `args`, its JSON document on
 * standard output too; on standard error the message and, for a command, where its help is and
 * its usage line, or "Did you mean" for a near miss.
 */
function refuse(
  io: Io,
  args: readonly string[],
  message: string,
  to: { path?: string; near?: string; class?: string },
): number {
  const { path, near, class: name = 'UsageError' } = to;
  if (wantsJson(args)) io.out(jsonLine({ ok: false, error: { class: name, message } }));
  io.err(forTerminal(path ? `${message}; see \`messaging-gateway ${path} --help\`` : message));
  if (near) io.err(`\nDid you mean this?\n  messaging-gateway ${near}`);
  else io.err(path ? (helpOf(path.split(' '))?.split('\n')[0] ?? '') : `\n${helpOf([])}`);
  return EXIT.usage;
}

/** An unknown command: "did you mean" when the name is a near miss, else the list of commands. */
function unknownCommand(command: string, io: Io, args: readonly string[] = []): number {
  const message = `unknown command ${JSON.stringify(command.slice(0, 64))}`;
  const near = nearest(command, COMMANDS.keys());
  return refuse(io, args, message, near ? { near } : {});
}

/** `channels lst`, or `channels` alone: the subcommands it takes, and "did you mean" for a near miss. */
function unknownSubcommand(
  command: string,
  sub: string | undefined,
  known: readonly string[],
  io: Io,
  args: string[],
) {
  const missing = sub === undefined || sub.startsWith('-');
  const message = missing
    ? `${command} needs a subcommand: ${known.join(', ')}`
    : `unknown subcommand ${JSON.stringify(sub.slice(0, 64))} of ${command}; it takes ${known.join(', ')}`;
  const near = missing ? undefined : nearest(sub, known);
  return refuse(io, args, message, near ? { near: `${command} ${near}` } : { path: command });
}

/** Prints what a command threw; resolves to the exit code (2 for a usage error, else 1). */
function failure(error: unknown, path: string, args: readonly string[], io: Io): number {
  const message = addressesMasked(String((error as Error).message));
  if (error instanceof UsageError || String((error as { code?: string }).code).startsWith('ERR_PARSE_ARGS'))
    return refuse(io, args, message, { path });
  // A value the SDK refused before anything was sent (a --schema name) is a usage error too.
  if (error instanceof GatewayValidationError) return refuse(io, args, message, { path, class: error.name });
  const { name } = error as Error;
  // --json: a script reads one document on standard output whatever happened
  if (wantsJson(args)) io.out(jsonLine({ ok: false, error: { class: name, message } }));
  io.err(forTerminal(`${path}: ${message}`));
  return EXIT.failed;
}

/** Runs one command line; resolves to the exit code. */
async function main(argv: string[], io: Io): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined || command === '--help' || command === '-h') {
    io.out(helpOf([]) as string);
    return command === undefined ? EXIT.usage : EXIT.ok;
  }
  if (command === 'help') return help(args, io);
  if (command === '--version' || command === '-v') {
    io.out(VERSION);
    return EXIT.ok;
  }
  if (command.startsWith('-'))
    return refuse(io, argv, `a command is needed before ${command.slice(0, 64)}`, {});
  const entry = COMMANDS.get(command);
  if (!entry) return unknownCommand(command, io, args);
  const [sub] = args;
  const options = optionWords(args);
  if (options.includes('--help') || options.includes('-h')) return help([command, ...options], io);
  const { subcommands } = entry;
  if (subcommands && !subcommands.includes(sub as string))
    return unknownSubcommand(command, sub, subcommands, io, args);
  try {
    return await entry.run(args, io);
  } catch (error) {
    return failure(error, subcommands ? `${command} ${sub}` : command, args, io);
  }
}

exitQuietlyOnClosedOutput(stopRunning);
// No top-level await: the bin also builds to CommonJS.
void main(process.argv.slice(2), processIo).then((code) => {
  process.exitCode = code;
  // Output closed mid-command: what it set up is removed by now; nothing is left to print.
  if (isOutputClosed()) process.exit(code);
});
