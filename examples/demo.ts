// `npm run demo`: the main job in one command. Starts a webhook receiver built on WebhookHandler,
// subscribes it with webhooks.ensure, connects a whatsapp channel and saves its QR as a PNG, sends
// several messages with sendMany (a live progress line on a terminal), and prints each message's
// path to delivered or failed through DeliveryTracker, one row per recipient in order.
//
// Without credentials it runs against the package's fake gateway (messaging-gateway-sdk/testing). With GATEWAY_BASE_URL and
// GATEWAY_TOKEN set it talks to the real service; then also set WEBHOOK_PUBLIC_URL (an address the
// service can reach that forwards to this machine's WEBHOOK_PORT), GATEWAY_CHANNEL_ID (or
// DEMO_CREATE_CHANNEL=1) and DEMO_RECIPIENTS (comma-separated whatsapp numbers).
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DeliveryTracker,
  GatewayClient,
  MessageFailedError,
  type SendMessageParams,
} from 'messaging-gateway-sdk';
import { createFakeGateway, UNREGISTERED_PREFIX } from 'messaging-gateway-sdk/testing';
import { createNodeMiddleware, qrToPng, WebhookHandler } from 'messaging-gateway-sdk/webhooks';

const env = process.env;
const real = Boolean(env.GATEWAY_BASE_URL && env.GATEWAY_TOKEN);
const say = (line: string) => console.log(line);

// 1. The gateway: the real one, or the fake one (which repeats a fifth of its deliveries, as the
//    service may).
const fake = real ? undefined : await createFakeGateway({ repeats: 0.2, stepMs: 25 });
const client = fake ? new GatewayClient({ baseUrl: fake.url, token: fake.token }) : new GatewayClient();
say(real ? `gateway: ${env.GATEWAY_BASE_URL}` : `gateway: local fake gateway at ${fake?.url}`);

// 2. The webhook receiver, and the tracker that joins sends to their statuses.
const hooks = new WebhookHandler({ secret: 'demo-secret' });
hooks.on('error', (error, { stage }) => say(`  webhook ${stage} error: ${error.message}`));
const tracker = new DeliveryTracker().attach(hooks);
const paths = new Map<string, string[]>();
tracker.on('status', (u) => {
  if (u.request_id) paths.set(u.request_id, [...(paths.get(u.request_id) ?? []), u.status]);
});
const receiver = createServer(createNodeMiddleware(hooks, { path: '/hooks' }));
await new Promise<void>((r) => receiver.listen(Number(env.WEBHOOK_PORT ?? 0), '127.0.0.1', r));
const local = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
const hookUrl = `${env.WEBHOOK_PUBLIC_URL ?? local}?secret=demo-secret`;
say(`webhook receiver: ${local}`);

try {
  // 3. Subscribe the receiver to exactly the events the demo handles.
  const events = [
    'message.add',
    'message.status_update',
    'channel.create',
    'channel.qr_update',
    'channel.status_update',
  ] as const;
  const subs = await client.webhooks.ensure(hookUrl, [...events], { prune: true });
  say(`subscribed to ${subs.length} events`);

  // 4. A channel: connect a whatsapp number and save its QR code.
  const channelId = await connectChannel();

  // 5. Send several messages at once, with a live progress line.
  const recipients = real ? (env.DEMO_RECIPIENTS ?? '').split(',').filter(Boolean) : demoRecipients();
  const messages: SendMessageParams[] = recipients.map((chat_id, i) => ({
    channel_id: channelId,
    recipient: { chat_type: 'whatsapp', chat_id },
    text: `Hello from the messaging-gateway-sdk demo (#${i + 1})`,
  }));
  // The progress line rewrites itself (\r): on a terminal only, not in a log or a pipe.
  const live = process.stdout.isTTY === true;
  const progress = ({ done, failed, total }: { done: number; failed: number; total: number }) =>
    `sending: ${done}/${total} done, ${failed} failed`;
  const results = await client.messages.sendMany(messages, {
    concurrency: 4,
    ...(live && { onProgress: (p) => process.stdout.write(`\r${progress(p)}`) }),
  });
  const failed = results.filter((r) => !r.ok).length;
  if (live) process.stdout.write('\n');
  else say(progress({ done: results.length, failed, total: results.length }));

  // 6. Follow each accepted message to its outcome; one row per recipient, sorted.
  const rows = await Promise.all(results.map((result, i) => follow(recipients[i] as string, result)));
  say('outcomes:');
  for (const row of rows.sort()) say(row);
  const repeats = fake?.deliveries.filter((d) => d.repeat).length ?? 0;
  say(`done: ${paths.size} messages tracked${repeats ? `, ${repeats} repeated deliveries ignored` : ''}`);
  if (repeats)
    say(
      "  (the fake delivers some webhooks twice, as the service may; the handler's dedupe remembers each " +
        'meta.idempotency_key and answers a repeat without running the listeners again)',
    );
} finally {
  await hooks.drain();
  await new Promise((r) => receiver.close(r));
  await fake?.close();
}

function demoRecipients(): string[] {
  // A number starting with UNREGISTERED_PREFIX (000) fails with bad_contact at the fake.
  return ['79001234567', '79001234568', '79001234569', `${UNREGISTERED_PREFIX}1234567`, '79001234570'];
}

/** Creates a whatsapp channel (or takes GATEWAY_CHANNEL_ID), saves its QR, waits until active. */
async function connectChannel(): Promise<string> {
  if (real && !env.DEMO_CREATE_CHANNEL) return env.GATEWAY_CHANNEL_ID ?? '';
  const qr = new Promise<{ channel_id: string; qr_code: string }>((resolve) =>
    hooks.on('channel.qr_update', ({ data }) => data[0] && resolve(data[0])),
  );
  const active = new Promise<void>((resolve) =>
    hooks.on('channel.status_update', ({ data }) => data.some((c) => c.status === 'active') && resolve()),
  );
  const [created] = await client.channels.create({ transport: 'whatsapp', credentials: {} });
  say(`channel created: ${created?.channel_id}`);
  const { channel_id, qr_code } = await withTimeout(qr, 30_000, 'no QR code arrived');
  await mkdir('demo-output', { recursive: true });
  await writeFile(`demo-output/qr-${channel_id}.png`, qrToPng(qr_code));
  say(
    fake
      ? `QR code saved to demo-output/qr-${channel_id}.png; the fake gateway scans it itself (on the service, you scan it with the phone)`
      : `QR code saved to demo-output/qr-${channel_id}.png: scan it with the phone`,
  );
  await withTimeout(active, real ? 300_000 : 30_000, 'the channel did not become active');
  say('channel active');
  return channel_id;
}

/** One message's row: accepted → sent → delivered → read, or accepted → failed (reason). */
async function follow(
  to: string,
  result: Awaited<ReturnType<typeof client.messages.sendMany>>[number],
): Promise<string> {
  const row = (text: string) => `  ${to.padEnd(13)} ${text}`;
  if (!result.ok) return row(`not sent: ${result.error.message}`);
  const { request_id } = result.value;
  const path = () => (paths.get(request_id) ?? []).join(' → ') || '(no status)';
  try {
    await tracker.waitFor(request_id, { until: 'read', timeoutMs: real ? 120_000 : 10_000 });
    return row(path());
  } catch (error) {
    // A failed message: its reason (bad_contact, …), the status path already ends in "failed".
    if (error instanceof MessageFailedError) return row(`${path()} (${error.reason ?? 'no reason given'})`);
    return row(`${path()} (${(error as Error).message})`);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(what)), ms).unref()),
  ]);
}
