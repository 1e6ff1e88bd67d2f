#!/usr/bin/env node
// The bin `messaging-gateway`: the commands for the service (send, channels, webhooks, v3) and for
// local development (fake-gateway, trigger, decode, replay). It loads nothing beyond the package
// and node's own modules.
import { VERSION } from '../version.js';
import { channels } from './channels.js';
import { channelsConnect } from './channels-connect.js';
import { decode } from './decode.js';
import { fakeGateway } from './fake-gateway.js';
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
import { postgres } from './postgres.js';
import { replay } from './replay.js';
import { send } from './send.js';
import { nearest } from './suggest.js';
import { trigger } from './trigger.js';
import { v3 } from './v3.js';
import { webhooks } from './webhooks.js';

/** A command: takes its arguments and the streams, resolves to an exit code. */
type Command = (args: string[], io: Io) => Promise<number>;

/**
 * Every command, one line each. A Map, so a name such as `toString` or `__proto__` is simply not
 * in it (an object's inherited members would be found).
 */
const COMMANDS = new Map<string, Command>([
  ['send', send],
  ['channels', (args, io) => channels(args, io, channelsConnect)],
  ['webhooks', webhooks],
  ['v3', v3],
  ['fake-gateway', (args, io) => fakeGateway(args, io, stopSignal())],
  ['trigger', trigger],
  ['replay', replay],
  ['decode', decode],
  ['postgres', postgres],
]);

/** Resolves on Ctrl-C or a termination signal. */
function stopSignal(): Promise<void> {
  return new Promise((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => resolve());
  });
}

/** `messaging-gateway help [command [sub]]`: the help of the bin or of one command. */
function help(topic: string[], io: Io): number {
  const text = helpOf(topic);
  if (text !== undefined) {
    io.out(text);
    return EXIT.ok;
  }
  return unknownCommand(topic.join(' '), io);
}

/**
 * Exit 2 with "did you mean" when the name is a near miss, else the list of commands; with
 * `--json` in `args`, the error as the one document on standard output too.
 */
function unknownCommand(command: string, io: Io, args: readonly string[] = []): number {
  const near = nearest(command, COMMANDS.keys());
  const named = JSON.stringify(command.slice(0, 64));
  if (args.includes('--json'))
    io.out(jsonLine({ ok: false, error: { class: 'UsageError', message: `unknown command ${named}` } }));
  io.err(`unknown command ${forTerminal(named)}`);
  io.err(near ? `\nDid you mean this?\n  messaging-gateway ${near}` : `\n${helpOf([])}`);
  return EXIT.usage;
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
  const run = COMMANDS.get(command);
  if (!run) return unknownCommand(command, io, args);
  if (args.includes('--help') || args.includes('-h')) return help([command, ...args], io);
  try {
    return await run(args, io);
  } catch (error) {
    const usage =
      error instanceof UsageError || String((error as { code?: string }).code).startsWith('ERR_PARSE_ARGS');
    const { name } = error as Error;
    const message = addressesMasked((error as Error).message);
    // --json: a script reads one document on standard output whatever happened
    if (args.includes('--json'))
      io.out(jsonLine({ ok: false, error: { class: usage ? 'UsageError' : name, message } }));
    io.err(forTerminal(`${command}: ${message}`));
    if (usage) io.err(`run \`messaging-gateway ${command} --help\` for its options`);
    return usage ? EXIT.usage : EXIT.failed;
  }
}

exitQuietlyOnClosedOutput(stopRunning);
// No top-level await: the bin also builds to CommonJS.
void main(process.argv.slice(2), processIo).then((code) => {
  process.exitCode = code;
  // Output closed mid-command: what it set up is removed by now; nothing is left to print.
  if (isOutputClosed()) process.exit(code);
});
