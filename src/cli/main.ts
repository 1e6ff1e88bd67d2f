#!/usr/bin/env node
// The bin `messaging-gateway`: the commands for the service (send, channels, webhooks, v3) and for
// local development (fake-gateway, trigger, decode). It loads nothing beyond the package and
// node's own modules.
import { VERSION } from '../version.js';
import { channels } from './channels.js';
import { channelsConnect } from './channels-connect.js';
import { decode } from './decode.js';
import { fakeGateway } from './fake-gateway.js';
import { HELP } from './help.js';
import { EXIT, exitQuietlyOnClosedOutput, type Io, processIo, UsageError } from './io.js';
import { postgres } from './postgres.js';
import { replay } from './replay.js';
import { send } from './send.js';
import { trigger } from './trigger.js';
import { v3 } from './v3.js';
import { webhooks } from './webhooks.js';

/** The commands that take (args, io) and resolve to an exit code. */
const COMMANDS: Record<string, (args: string[], io: Io) => Promise<number>> = {
  send,
  channels: (args, io) => channels(args, io, channelsConnect),
  webhooks,
  v3,
  decode,
  trigger,
  replay,
  postgres,
};

/** Resolves on Ctrl-C or a termination signal. */
function stopSignal(): Promise<void> {
  return new Promise((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
}

/** Runs one command line; resolves to the exit code. */
async function main(argv: string[], io: Io): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    io.out(HELP.main);
    return command === undefined ? EXIT.usage : EXIT.ok;
  }
  if (command === '--version' || command === '-v') {
    io.out(VERSION);
    return EXIT.ok;
  }
  if (!(command in HELP) || command === 'main' || command.includes(' ')) {
    io.err(`unknown command "${command}"\n\n${HELP.main}`);
    return EXIT.usage;
  }
  if (args.includes('--help') || args.includes('-h')) {
    const topic = command === 'channels' && args[0] === 'connect' ? 'channels connect' : command;
    io.out(HELP[topic as keyof typeof HELP]);
    return EXIT.ok;
  }
  try {
    const run = COMMANDS[command];
    if (run) return await run(args, io);
    return await fakeGateway(args, io, stopSignal());
  } catch (error) {
    const usage =
      error instanceof UsageError || String((error as { code?: string }).code).startsWith('ERR_PARSE_ARGS');
    io.err(`${command}: ${(error as Error).message}`);
    if (usage) io.err(`run \`messaging-gateway ${command} --help\` for its options`);
    return usage ? EXIT.usage : EXIT.failed;
  }
}

exitQuietlyOnClosedOutput();
// No top-level await: the bin also builds to CommonJS.
void main(process.argv.slice(2), processIo).then((code) => {
  process.exitCode = code;
});
