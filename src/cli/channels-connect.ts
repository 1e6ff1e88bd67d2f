// `messaging-gateway channels connect`: client.channels.connect with the bin's local receiver,
// each step printed; the QR shown in the terminal and saved as a PNG, the 2FA password asked.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { GatewayApiError } from '../core/errors.js';
import { isRecord } from '../internal/is-record.js';
import type { ConnectStep } from '../resources/channel-connect/steps.js';
import { type CreateChannelParams, pairingCodeParams } from '../schemas/channels.js';
import { channelLine, masked } from './channels.js';
import { untilInterrupted } from './interrupt.js';
import { EXIT, forTerminal, type Io, parseTimeout, readInput, terminalSafeJson, UsageError } from './io.js';
import { decodePng } from './png-decode.js';
import { askSecret, PromptCancelledError } from './prompt.js';
import { closeReceiver, parsePort, startReceiver } from './receiver.js';
import { callService, clientFrom, parseServiceArgs } from './service.js';
import { halfBlockLines, qrModules } from './terminal-qr.js';

/** The v2 events the flow hears. */
const CHANNEL_EVENTS = ['channel.qr_update', 'channel.status_update'] as const;
/** The most bytes read from a --credentials @file. */
const MAX_CREDENTIALS_BYTES = 64 * 1024;

/**
 * What a step prints, text and JSON, once its side effects are done. Text, for people, shows a
 * phone by its last digits; JSON, for scripts, keeps every id and phone whole.
 */
interface Shown {
  json: Record<string, unknown>;
  lines: string[];
}

/** --credentials '{"telegram_token":"…"}' or @file; {} when absent. Never printed. */
async function credentialsOf(text: string | undefined, io: Io): Promise<Record<string, unknown>> {
  if (text === undefined) return {};
  const json = text.startsWith('@') ? await readInput(text.slice(1), io, MAX_CREDENTIALS_BYTES) : text;
  try {
    const value: unknown = JSON.parse(json);
    if (isRecord(value)) return value;
  } catch {}
  throw new UsageError('--credentials takes a JSON object, or @file holding one');
}

/** Strings of the credentials, kept out of every printed error. */
function secretsIn(credentials: Record<string, unknown>): string[] {
  return Object.values(credentials).filter((v): v is string => typeof v === 'string');
}

/** The QR as half-block lines, or a line saying why it cannot be shown (the PNG is still saved). */
function qrArt(png: Uint8Array): string[] {
  try {
    const colour = process.stdout.isTTY === true && !process.env.NO_COLOR;
    return halfBlockLines(qrModules(decodePng(png)), colour);
  } catch (error) {
    return [`(the QR cannot be shown here: ${(error as Error).message}; open the saved PNG)`];
  }
}

/** Prints one step (and saves a QR); returns after a `password` step is answered. */
async function showStep(
  step: ConnectStep,
  context: {
    qrFile: string | undefined;
    submit2fa: (code: string) => Promise<void>;
    /** Aborts the password prompt on a signal or once --timeout passed. */
    promptSignal: () => AbortSignal;
  },
): Promise<Shown> {
  const base = { step: step.kind, channelId: step.channelId };
  switch (step.kind) {
    case 'created':
      return {
        json: { ...base, transport: step.transport },
        lines: [forTerminal(`created channel ${step.channelId} (${step.transport})`)],
      };
    case 'qr': {
      const file = resolve(context.qrFile ?? `${step.channelId.replace(/[^\w-]/g, '_')}-qr.png`);
      await writeFile(file, step.png);
      const lines = ['scan this QR code with the app (a new one replaces it):', ...qrArt(step.png)];
      return { json: { ...base, file }, lines: [...lines, forTerminal(`QR saved to ${file}`)] };
    }
    case 'pairing-code':
      return {
        json: { ...base, code: step.code, phone: step.phone },
        lines: [
          forTerminal(
            `pairing code for ${masked(step.phone)}: ${step.code} (type it in the app: link with phone number)`,
          ),
        ],
      };
    case 'url':
      return {
        json: { ...base, url: step.url },
        lines: [forTerminal(`open this address to connect: ${step.url}`)],
      };
    case 'password':
      for (;;) {
        let code: string;
        try {
          const question = forTerminal(`two-factor password of the account (channel ${step.channelId}): `);
          code = await askSecret(question, process.stdin, process.stderr, context.promptSignal());
        } catch (error) {
          if (error instanceof PromptCancelledError) throw error;
          // interrupted or past --timeout: the flow's next step rejects with its own error
          return { json: base, lines: [] };
        }
        try {
          await context.submit2fa(code);
          return { json: base, lines: ['password sent'] };
        } catch (error) {
          if (!(error instanceof GatewayApiError)) {
            // not the service's no (the flow ended, the network): the flow asks again or ends
            process.stderr.write(`the password was not sent (${(error as Error).name})\n`);
            return { json: base, lines: [] };
          }
          process.stderr.write(`the password was refused (${error.name}); try again\n`);
        }
      }
    case 'active':
      return {
        json: { ...base, channel: step.channel },
        lines: [forTerminal(`active: ${channelLine(step.channel)}`)],
      };
  }
}

/** The options of `channels connect` (with the service's). */
export const CONNECT_OPTIONS = {
  transport: { type: 'string' },
  'pairing-phone': { type: 'string' },
  listen: { type: 'string' },
  'public-url': { type: 'string' },
  'qr-file': { type: 'string' },
  credentials: { type: 'string' },
  timeout: { type: 'string', default: '300' },
} as const;

/**
 * `messaging-gateway channels connect --transport <t> [--pairing-phone P] --listen <port>
 * [--public-url URL] [--qr-file F] [--credentials JSON|@file] [--timeout S] [--json]`.
 */
export async function channelsConnect(args: string[], io: Io): Promise<number> {
  const { values } = parseServiceArgs(args, CONNECT_OPTIONS);
  if (!values.transport) throw new UsageError('channels connect needs --transport <whatsapp, telegram, …>');
  const port = parsePort(values.listen);
  const timeoutMs = parseTimeout(values.timeout);
  const pairingPhone = values['pairing-phone'];
  if (pairingPhone !== undefined && values.transport !== 'whatsapp')
    throw new UsageError('--pairing-phone is for whatsapp (a pairing code is whatsapp only)');
  // checked before the channel is created, by the rule requestPairingCode applies after the QR
  if (
    pairingPhone !== undefined &&
    !pairingCodeParams.safeParse({ transport: 'whatsapp', pairing_phone: pairingPhone }).success
  )
    throw new UsageError(
      '--pairing-phone takes the phone in digits only, international format without + (e.g. 79001234567)',
    );
  const credentials = await credentialsOf(values.credentials, io);
  const params = { transport: values.transport, credentials } as CreateChannelParams;
  const { client, credentials: keys } = clientFrom(values);
  const json = values.json === true;
  return callService(io, json, [...keys, ...secretsIn(credentials)], () =>
    untilInterrupted(async (signal) => {
      const receiver = await startReceiver({
        client,
        port,
        events: CHANNEL_EVENTS,
        signal,
        ...(values['public-url'] !== undefined && { publicUrl: values['public-url'] }),
      });
      try {
        if (!json) io.out(`receiving webhooks at ${receiver.shownUrl}`);
        const deadline = Date.now() + timeoutMs;
        const connection = client.channels.connect(params, {
          hooks: receiver.hooks,
          timeoutMs,
          signal,
          ...(pairingPhone !== undefined && { pairingPhone }),
        });
        const context = {
          qrFile: values['qr-file'],
          submit2fa: (code: string) => connection.submit2fa(code),
          promptSignal: () =>
            AbortSignal.any([signal, AbortSignal.timeout(Math.max(0, deadline - Date.now()))]),
        };
        for await (const step of connection) {
          const shown = await showStep(step, context);
          if (json) io.out(terminalSafeJson(JSON.stringify(shown.json)));
          else for (const line of shown.lines) io.out(line);
        }
        return EXIT.ok;
      } finally {
        await closeReceiver(receiver, io);
      }
    }),
  );
}
