// `messaging-gateway completion bash|zsh|fish`: a completion script built from the bin's own
// tables (its commands and subcommands, each command's options, the kinds trigger builds), so
// what it offers is what the bin takes.
import { TRANSPORTS, V2_EVENTS } from '../schemas/constants.js';
import { DELIVERY_KINDS } from '../testing/build-webhook.js';
import { DELIVERY_ORDER } from '../tracking/status-order.js';
import { CHANNELS_OPTIONS } from './channels.js';
import { CONNECT_OPTIONS } from './channels-connect.js';
import { COMMANDS } from './commands.js';
import { bashScript, fishScript, zshScript } from './completion-scripts.js';
import { DECODE_OPTIONS } from './decode.js';
import { FAKE_GATEWAY_OPTIONS } from './fake-gateway.js';
import { EXIT, type Io, UsageError } from './io.js';
import type { Options } from './options.js';
import { POSTGRES_OPTIONS } from './postgres.js';
import { REPLAY_OPTIONS } from './replay.js';
import { SEND_OPTIONS } from './send.js';
import { SERVICE_OPTIONS } from './service.js';
import { TRIGGER_OPTIONS } from './trigger.js';
import { V3_OPTIONS } from './v3.js';
import { WEBHOOKS_OPTIONS } from './webhooks.js';

/** What a command (or a command and its subcommand) completes. */
export interface CompletedPath {
  /** `send`, `channels`, `channels connect`. */
  path: string;
  /** The words its first argument takes: subcommands, trigger's kinds, help's commands. */
  first: readonly string[];
  /** Its options, as typed (`--channel`). */
  options: readonly string[];
}

/** Everything a completion script offers. */
export interface CompletionModel {
  /** The words after `messaging-gateway`: its commands and `help`. */
  commands: readonly string[];
  /** The options the bin takes alone. */
  flags: readonly string[];
  paths: readonly CompletedPath[];
  /** The options that take a value (`--channel ID`); the others are flags. */
  takesValue: readonly string[];
  /** The values of an option that takes a known set (`--wait`: sent, delivered, read). */
  values: Readonly<Record<string, readonly string[]>>;
}

/** `--name` of each option, and `--help`, which every command takes. */
const flagsOf = (...options: Options[]): string[] => [
  ...new Set([...options.flatMap((o) => Object.keys(o).map((name) => `--${name}`)), '--help']),
];

/** The options of each command, by the path that takes them. */
const OPTIONS_OF: Record<string, Options[]> = {
  send: [SERVICE_OPTIONS, SEND_OPTIONS],
  channels: [SERVICE_OPTIONS, CHANNELS_OPTIONS],
  'channels connect': [SERVICE_OPTIONS, CONNECT_OPTIONS],
  webhooks: [SERVICE_OPTIONS, WEBHOOKS_OPTIONS],
  v3: [SERVICE_OPTIONS, V3_OPTIONS],
  'fake-gateway': [FAKE_GATEWAY_OPTIONS],
  trigger: [TRIGGER_OPTIONS],
  replay: [REPLAY_OPTIONS],
  decode: [DECODE_OPTIONS],
  postgres: [POSTGRES_OPTIONS],
  completion: [],
};

/** The model of the bin as it is: every command of its table, every option its commands parse. */
export function completionModel(): CompletionModel {
  const commands = [...COMMANDS.keys()];
  const paths: CompletedPath[] = Object.entries(OPTIONS_OF).map(([path, options]) => ({
    path,
    first:
      path === 'trigger' ? DELIVERY_KINDS : path.includes(' ') ? [] : (COMMANDS.get(path)?.subcommands ?? []),
    options: flagsOf(...options),
  }));
  paths.push({ path: 'help', first: commands, options: [] });
  const takesValue = Object.values(OPTIONS_OF)
    .flat()
    .flatMap((options) => Object.entries(options).filter(([, o]) => o.type === 'string'))
    .map(([name]) => `--${name}`);
  return {
    commands: [...commands, 'help'],
    flags: ['--help', '--version'],
    paths,
    takesValue: [...new Set(takesValue)],
    values: {
      '--wait': DELIVERY_ORDER.slice(1),
      '--transport': TRANSPORTS,
      '--events': V2_EVENTS,
    },
  };
}

const SCRIPTS = { bash: bashScript, zsh: zshScript, fish: fishScript };

/** `messaging-gateway completion bash|zsh|fish`: prints the script. */
export async function completion(args: string[], io: Io): Promise<number> {
  const [shell, ...rest] = args;
  if (rest.length) throw new UsageError('completion takes one shell: bash, zsh or fish');
  if (shell !== 'bash' && shell !== 'zsh' && shell !== 'fish')
    throw new UsageError('completion takes bash, zsh or fish');
  io.out(SCRIPTS[shell](completionModel()));
  return EXIT.ok;
}
