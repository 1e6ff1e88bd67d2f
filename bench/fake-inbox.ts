// The fake gateway's CPU per API request while one inbox page listens, with a full inbox (100
// channels showing a QR, 500 long messages): `npx tsx bench/fake-inbox.ts [source root]`. The
// source root (default: this checkout) lets the same script time another version of src/.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const root = process.argv[2] ?? new URL('..', import.meta.url).pathname;
const { createFakeGateway } = (await import(
  pathToFileURL(`${root}/src/testing/fake-gateway.ts`).href
)) as typeof import('../src/testing/fake-gateway.js');

const gateway = await createFakeGateway({
  autoScan: false,
  autoStatuses: false,
  rateLimit: false,
  channels: [{ channel_id: 'ch-1' }],
});
const call = (method: string, path: string, body?: unknown, token = gateway.token) =>
  fetch(`${gateway.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}` },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  }).then((r) => r.arrayBuffer());

for (let i = 0; i < 100; i++) await call('POST', '/v2/channels', { transport: 'whatsapp', credentials: {} });
const recipient = { chat_type: 'whatsapp', chat_id: '79001234567' };
for (let i = 0; i < 500; i++)
  await call('POST', '/v2/messages', { channel_id: 'ch-1', recipient, text: 'x'.repeat(4000) });
await gateway.drain();
await new Promise((r) => setTimeout(r, 300));

/** Opens the page's event stream and counts what it receives. */
async function openPage() {
  const page = await (await fetch(`${gateway.url}/`)).text();
  const token = /<meta name="inbox-token" content="([^"]+)">/.exec(page)?.[1] ?? '';
  const res = await fetch(`${gateway.url}/_inbox/events?t=${token}`);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const seen = { bytes: 0, events: 0 };
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      seen.bytes += value?.byteLength ?? 0;
      seen.events += new TextDecoder().decode(value).split('\n\n').length - 1;
    }
  })();
  await new Promise((r) => setTimeout(r, 500));
  return { seen, close: () => reader.cancel() };
}

/**
 * CPU (user + system) of this process per request, over `n` requests (half with a wrong token),
 * one every 30 ms: the pace of a person's app, slower than any coalescing of a burst.
 */
async function cpuPerRequest(n: number) {
  const start = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    await call('GET', '/v2/webhooks', undefined, i % 2 ? 'wrong' : gateway.token);
    await new Promise((r) => setTimeout(r, 30));
  }
  await new Promise((r) => setTimeout(r, 1000)); // the updates the burst scheduled
  const used = process.cpuUsage(start);
  return { ms: (used.user + used.system) / 1000 / n, wallMs: performance.now() - t0 };
}

const idle = await cpuPerRequest(100);
const page = await openPage();
const before = { ...page.seen };
const open = await cpuPerRequest(100);
const sent = { bytes: page.seen.bytes - before.bytes, events: page.seen.events - before.events };
await page.close();
console.log(`no page open: ${idle.ms.toFixed(2)} ms CPU per request`);
console.log(`1 page open:  ${open.ms.toFixed(2)} ms CPU per request`);
console.log(
  `the page got ${sent.events} updates, ${(sent.bytes / 1024 / 1024).toFixed(2)} MiB, for 100 requests in ${(open.wallMs / 1000).toFixed(1)} s`,
);
await gateway.close();
process.exit(0);
