import type { GatewayClient } from '../client.js';
import { maskPhones } from '../core/logger.js';
import { DeliveryTracker } from '../tracking/delivery-tracker.js';
import { DELIVERY_ORDER, type FinalStatus } from '../tracking/status-order.js';
import { untilInterrupted } from './interrupt.js';
import { EXIT, forTerminal, type Io, parseTimeout, UsageError } from './io.js';
import { closeReceiver, parsePort, type Receiver, startReceiver } from './receiver.js';
import { callService, clientFrom, parseServiceArgs, print } from './service.js';

/** The statuses `--wait` takes: the tracker's order past `accepted` (which the send's answer is). */
const WAITS: readonly FinalStatus[] = DELIVERY_ORDER.slice(1);

/** --wait, --listen, --timeout and --public-url, checked; undefined without --wait. */
function waitOptions(values: Record<string, unknown>) {
  const until = values.wait;
  if (until === undefined) {
    for (const option of ['listen', 'public-url'])
      if (values[option] !== undefined) throw new UsageError(`--${option} is for --wait`);
    return undefined;
  }
  if (!WAITS.includes(until as never)) throw new UsageError(`--wait takes ${WAITS.join(', ')}`);
  const timeoutMs = parseTimeout(values.timeout as string | undefined);
  const publicUrl = values['public-url'] as string | undefined;
  return {
    until: until as FinalStatus,
    port: parsePort(values.listen as string | undefined),
    timeoutMs,
    publicUrl,
  };
}

/** Sends, then (with --wait) waits for the status on a receiver started before the send. */
async function sendAndWait(
  client: GatewayClient,
  params: unknown,
  wait: ReturnType<typeof waitOptions>,
  signal: AbortSignal,
  onSent: (result: { request_id: string; chat_id?: string | null | undefined }) => void,
  io: Io,
) {
  let receiver: Receiver | undefined;
  try {
    let tracker: DeliveryTracker | undefined;
    if (wait) {
      const { port, publicUrl } = wait;
      receiver = await startReceiver({
        client,
        port,
        events: ['message.status_update'],
        signal,
        ...(publicUrl && { publicUrl }),
      });
      tracker = new DeliveryTracker().attach(receiver.hooks);
    }
    const result = await client.messages.send(params as never, { signal });
    onSent(result);
    const update =
      wait && tracker
        ? await tracker.waitFor(result.request_id, { until: wait.until, timeoutMs: wait.timeoutMs, signal })
        : undefined;
    return { result, status: update?.status };
  } finally {
    await closeReceiver(receiver, io);
  }
}

/** `--to whatsapp:79001234567` or `--to telegram:@name` → the recipient object. */
function recipientOf(to: string): Record<string, string> {
  const colon = to.indexOf(':');
  if (colon <= 0 || colon === to.length - 1)
    throw new UsageError('--to takes <chat_type>:<chat_id> or telegram:@username, e.g. whatsapp:79001234567');
  const chatType = to.slice(0, colon);
  const id = to.slice(colon + 1);
  return id.startsWith('@')
    ? { chat_type: chatType, username: id.slice(1) }
    : { chat_type: chatType, chat_id: id };
}

/** The options of `send` (with the service's). */
export const SEND_OPTIONS = {
  channel: { type: 'string' },
  to: { type: 'string' },
  text: { type: 'string' },
  file: { type: 'string' },
  wait: { type: 'string' },
  listen: { type: 'string' },
  timeout: { type: 'string', default: '60' },
  'public-url': { type: 'string' },
} as const;

/**
 * `messaging-gateway send --channel <id> --to <chat_type>:<chat_id or @username> (--text T | --file URL)
 * [--wait sent|delivered|read --listen <port> [--timeout S] [--public-url URL]]`.
 */
export async function send(args: string[], io: Io): Promise<number> {
  const { values } = parseServiceArgs(args, SEND_OPTIONS);
  if (!values.channel) throw new UsageError('send needs --channel <channel id>');
  if (!values.to) throw new UsageError('send needs --to <chat_type>:<chat_id>');
  if (values.text !== undefined && values.file !== undefined)
    throw new UsageError('--text and --file are exclusive: a message carries a text or an attachment');
  if (values.text === undefined && values.file === undefined)
    throw new UsageError('send needs one of --text or --file');
  const wait = waitOptions(values);
  const { client, credentials } = clientFrom(values);
  const params = {
    channel_id: values.channel,
    recipient: recipientOf(values.to),
    ...(values.text !== undefined ? { text: values.text } : { attachment: { url: values.file } }),
  };
  // Once sent, the request id goes beside any later error (a failed or timed-out wait).
  let sent: { request_id: string } | undefined;
  const known = (): Record<string, string> => (sent ? { request_id: sent.request_id } : {});
  return callService(
    io,
    values.json,
    credentials,
    async () => {
      // The sent line comes first in text. A chat_id that is a phone number shows its last 4
      // digits there, as the bin's text shows every phone (text ends up in terminals' scrollback
      // and CI logs); --json, for scripts, keeps it whole.
      const onSent = (r: { request_id: string; chat_id?: string | null | undefined }) => {
        sent = r;
        const chat = r.chat_id ? `, chat_id ${maskPhones(r.chat_id)}` : '';
        if (!values.json) io.out(forTerminal(`sent: request_id ${r.request_id}${chat}`));
      };
      const { result, status } = await untilInterrupted((signal) =>
        sendAndWait(client, params, wait, signal, onSent, io),
      );
      print(io, values.json, { ok: true, ...result, ...(status && { status }) }, () =>
        status ? [`status: ${status}`] : [],
      );
      return EXIT.ok;
    },
    known,
  );
}
