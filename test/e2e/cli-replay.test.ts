// fake-gateway --record, then replay into a handler: the same decoded webhooks, the same answers.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import { buildWebhook } from '../../src/testing/build-webhook.js';
import { createNodeMiddleware } from '../../src/webhooks/adapters/node.js';
import type { Webhook } from '../../src/webhooks/decode/parse.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { BIN_RUNS_TIMEOUT_MS, runBin, startBin } from '../support/run-bin.js';
import { listen } from '../support/servers.js';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

/** A receiver with a secret in its URL query; it records every webhook it dispatches. */
async function receiver() {
  const hooks = new WebhookHandler({ secret: 'q-secret', awaitListeners: true });
  const received: Webhook[] = [];
  hooks.on('webhook', (w) => void received.push(w));
  hooks.on('error', () => {});
  const server = await listen(createServer(createNodeMiddleware(hooks)));
  closers.push(server.close);
  return { received, url: `${server.url}/hooks` };
}

/** `fake-gateway --record` into a new folder: its first line (url, token), and what stops it. */
async function recordingGateway() {
  const dir = mkdtempSync(join(tmpdir(), 'mg-record-'));
  closers.push(() => rmSync(dir, { recursive: true, force: true }));
  const child = startBin(['fake-gateway', '--json', '--quiet', '--record', dir]);
  const exited = new Promise((resolve) => child.on('close', resolve));
  const lines = createInterface({ input: child.stdout });
  const started = JSON.parse(await new Promise<string>((r) => lines.once('line', r)));
  const stop = async () => {
    child.kill('SIGINT');
    await exited;
  };
  return { dir, started: started as { url: string; token: string }, stop };
}

describe('messaging-gateway replay', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  it('replays what fake-gateway --record saved: same decoded webhooks, same answers, in order', async () => {
    const first = await receiver();
    const { dir, started, stop } = await recordingGateway();
    try {
      const client = new GatewayClient({ baseUrl: started.url, token: started.token });
      await client.webhooks.subscribe([
        { url: `${first.url}?secret=q-secret`, event: 'message.add' },
        { url: `${first.url}?secret=q-secret`, event: 'message.status_update' },
      ]);
      const [channel] = await client.channels.create({
        transport: 'telegram',
        credentials: { telegram_token: 't' },
      });
      await client.messages.send({
        channel_id: channel?.channel_id as string,
        recipient: { chat_type: 'telegram', chat_id: '42' },
        text: 'Hello',
      });
      await expect
        .poll(
          () => first.received.filter((w) => w.api === 'v2' && w.event === 'message.status_update').length,
          { timeout: 60_000 },
        )
        .toBe(4);
    } finally {
      await stop();
    }
    const bodies = readdirSync(dir).filter((n) => !n.endsWith('.meta.json'));
    expect(bodies.length).toBe(first.received.length);
    const sidecar = JSON.parse(
      readFileSync(join(dir, bodies[0] as string).replace(/\.json$/, '.meta.json'), 'utf8'),
    );
    expect(sidecar).toMatchObject({ query: '?secret=q-secret', status: 200 });

    const second = await receiver();
    const text = await runBin(['replay', dir, '--to', second.url]);
    expect(text.code).toBe(0);
    expect(text.stdout.match(/→ 200 OK/g)?.length).toBe(bodies.length);
    expect(text.stdout).not.toContain('q-secret');
    // Deliveries are deduplicated by idempotency key: the handler answers 200 and dispatches once.
    expect(second.received).toEqual(first.received);
    const third = await receiver();
    const json = await runBin(['replay', ...bodies.map((b) => join(dir, b)), '--to', third.url, '--json']);
    const answers = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(answers.map((a) => [a.ok, a.status])).toEqual(bodies.map(() => [true, 200]));
    expect(third.received).toEqual(first.received);
  });

  it("a recording holds the bin's own temporary receivers' deliveries: replay says whose they are, --only-to sends only yours", async () => {
    const mine = await receiver();
    const { dir, started, stop } = await recordingGateway();
    try {
      const client = new GatewayClient({ baseUrl: started.url, token: started.token });
      await client.webhooks.subscribe([
        { url: `${mine.url}?secret=q-secret`, event: 'message.status_update' },
      ]);
      const [channel] = await client.channels.create({
        transport: 'telegram',
        credentials: { telegram_token: 't' },
      });
      const env = { GATEWAY_BASE_URL: started.url, GATEWAY_TOKEN: started.token };
      const args = ['--channel', channel?.channel_id as string, '--to', 'telegram:42', '--text', 'Hi'];
      // send --wait subscribes a receiver of its own, with a secret of its own, for this run only
      const sent = await runBin(['send', ...args, '--wait', 'read', '--listen', '0'], '', env);
      expect(sent.code, sent.stderr).toBe(0);
      await expect.poll(() => mine.received.length, { timeout: 60_000 }).toBe(4); // the fake's four statuses of a send
    } finally {
      await stop();
    }
    const sidecars = readdirSync(dir)
      .filter((n) => n.endsWith('.meta.json'))
      .map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')));
    const theirs = sidecars.filter((c) => c.receiver !== mine.url);
    expect(theirs.length).toBeGreaterThan(0);
    const sendWaitSecret = new URLSearchParams(theirs[0].query).get('secret') as string;
    expect(sendWaitSecret).toBeTruthy();

    // replayed into the receiver they were recorded for: its own are duplicates (200), the others
    // carry the temporary receiver's secret (401), and each of those lines says so
    const all = await runBin(['replay', dir, '--to', mine.url]);
    expect(all.code).toBe(1);
    const notMine = all.stdout.split('\n').filter((l) => l.includes('recorded for another receiver'));
    expect(notMine).toHaveLength(theirs.length);
    for (const line of notMine)
      expect(line).toMatch(
        /, recorded for another receiver \(http:\/\/127\.0\.0\.1:\d+\/hooks\?secret=…\) → 401 /,
      );
    expect(all.stdout + all.stderr).not.toContain(sendWaitSecret);
    expect(all.stdout + all.stderr).not.toContain('q-secret');

    const target = await receiver();
    const only = await runBin(['replay', dir, '--only-to', mine.url, '--to', target.url]);
    expect(only.code, only.stdout + only.stderr).toBe(0);
    expect(only.stdout.match(/→ 200 OK/g)?.length).toBe(sidecars.length - theirs.length);
    expect(
      only.stdout.match(
        /: recorded for another receiver \(http:\/\/127\.0\.0\.1:\d+\/hooks\?secret=…\); skipped \(--only-to\)/g,
      )?.length,
    ).toBe(theirs.length);
    expect(only.stdout).not.toContain(sendWaitSecret);
    expect(target.received).toHaveLength(sidecars.length - theirs.length);

    // --only-to alone sends to that receiver; --json names whose each skipped delivery was
    const json = await runBin(['replay', dir, '--only-to', mine.url, '--json']);
    expect(json.code).toBe(0);
    const docs = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(docs.filter((d) => d.skipped)).toHaveLength(theirs.length);
    expect(docs.filter((d) => d.status === 200)).toHaveLength(sidecars.length - theirs.length);
    expect(json.stdout).not.toContain(sendWaitSecret);
  });

  it('--set changes a field of each body before it is sent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mg-replay-'));
    closers.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'a.json'), JSON.stringify(buildWebhook('message.add', {}, { seed: 's' })));
    const target = await receiver();
    const run = await runBin([
      'replay',
      join(dir, 'a.json'),
      '--to',
      `${target.url}?secret=q-secret`,
      '--set',
      'data.0.text=Changed',
    ]);
    expect(run.code).toBe(0);
    expect(target.received).toMatchObject([{ event: 'message.add', data: [{ text: 'Changed' }] }]);
    const refused = await runBin([
      'replay',
      join(dir, 'a.json'),
      '--to',
      target.url,
      '--set',
      '__proto__.x=1',
    ]);
    expect(refused.code).toBe(2);
  });

  it('replays a folder in the order of its numbers, past 9999 too (not in the order of the names)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mg-replay-'));
    closers.push(() => rmSync(dir, { recursive: true, force: true }));
    for (const n of ['0002', '9999', '10000', '10001'])
      writeFileSync(
        join(dir, `${n}-message.add.json`),
        JSON.stringify(buildWebhook('message.add', { data: [{ text: n }] }, { seed: n })),
      );
    const target = await receiver();
    const run = await runBin(['replay', dir, '--to', `${target.url}?secret=q-secret`]);
    expect(run.code).toBe(0);
    const texts = target.received.map((w) => (w as { data: { text?: string }[] }).data[0]?.text);
    expect(texts).toEqual(['0002', '9999', '10000', '10001']);
  });

  it('prints the issues of an invalid file, sends nothing of it, and exits 1', async () => {
    const target = await receiver();
    const run = await runBin([
      'replay',
      'test/fixtures/invalid/v2--data-not-an-array.json',
      '--to',
      target.url,
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/not a valid delivery, not sent: 1 issue\n {2}data: /);
    expect(target.received).toEqual([]);
  });
});
