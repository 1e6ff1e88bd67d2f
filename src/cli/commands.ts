// The bin's commands, one line each. A command's module is imported only when it runs:
// `--version`, `--help` and a mistyped command or subcommand load none of them (nor the client, zod or ky).
import { stopSignal } from './interrupt.js';
import type { Io } from './io.js';

/** A command: takes its arguments (after its name) and the streams, resolves to an exit code. */
export type Command = (args: string[], io: Io) => Promise<number>;

/** One command of the bin. */
export interface CommandEntry {
  /** The words it takes first (`channels list`), when it takes one; anything else is a usage error. */
  subcommands?: readonly string[];
  /** Imports the command's module and runs it. */
  run: Command;
}

/**
 * Every command. A Map, so a name such as `toString` or `__proto__` is simply not in it (an
 * object's inherited members would be found).
 */
export const COMMANDS: ReadonlyMap<string, CommandEntry> = new Map<string, CommandEntry>([
  ['send', { run: async (args, io) => (await import('./send.js')).send(args, io) }],
  [
    'channels',
    {
      subcommands: ['list', 'get', 'delete', 'connect'],
      run: async (args, io) => (await import('./channels.js')).channels(args, io),
    },
  ],
  [
    'webhooks',
    {
      subcommands: ['list', 'ensure', 'remove'],
      run: async (args, io) => (await import('./webhooks.js')).webhooks(args, io),
    },
  ],
  ['v3', { subcommands: ['get', 'set'], run: async (args, io) => (await import('./v3.js')).v3(args, io) }],
  [
    'fake-gateway',
    { run: async (args, io) => (await import('./fake-gateway.js')).fakeGateway(args, io, stopSignal()) },
  ],
  ['trigger', { run: async (args, io) => (await import('./trigger.js')).trigger(args, io) }],
  ['replay', { run: async (args, io) => (await import('./replay.js')).replay(args, io) }],
  ['decode', { run: async (args, io) => (await import('./decode.js')).decode(args, io) }],
  [
    'postgres',
    {
      subcommands: ['migrate', 'sql'],
      run: async (args, io) => (await import('./postgres.js')).postgres(args, io),
    },
  ],
  [
    'completion',
    {
      subcommands: ['bash', 'zsh', 'fish'],
      run: async (args, io) => (await import('./completion.js')).completion(args, io),
    },
  ],
]);
