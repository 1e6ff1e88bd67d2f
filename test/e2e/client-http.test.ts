import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import {
  GatewayApiError,
  GatewayTimeoutError,
  InternalServerError,
  RateLimitError,
} from '../../src/core/errors.js';
import { createFakeGateway, type FakeGateway } from '../../src/testing.js';
import { freePort, listen } from '../support/servers.js';

const text = {
  channel_id: 'ch-1',
  recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
  text: 'Hi',
} as const;

describe('GatewayClient over real HTTP (the fake gateway on 127.0.0.1)', () => {
  let gateway: FakeGateway;
  beforeAll(async () => {
    gateway = await createFakeGateway({
      rateLimit: { requests: 20, intervalMs: 1000 },
      channels: [{ channel_id: 'ch-1' }],
    });
  });
  afterAll(() => gateway.close());
  const rejected = () => gateway.requests.filter((r) => r.status === 429).length;

  const client = (options = {}) =>
    new GatewayClient({
      baseUrl: gateway.url,
      token: gateway.token,
      apiKey: gateway.apiKey,
      retryBackoff: { initialDelayMs: 5 },
      ...options,
    });

  it('keeps 70 concurrent calls under a 20-per-second limit: zero 429s', async () => {
    const before = rejected();
    const c = client({ rateLimit: { requests: 20, intervalMs: 1000 }, maxRetries: 0 });
    const results = await Promise.all(Array.from({ length: 70 }, () => c.messages.send(text)));
    expect(results).toHaveLength(70);
    expect(rejected() - before).toBe(0);
  });

  it('without its own limiter the same burst is answered 429 (the test can fail)', async () => {
    await new Promise((r) => setTimeout(r, 1100)); // let the fake's window reset
    const before = rejected();
    const c = client({ rateLimit: false, maxRetries: 0 });
    const results = await Promise.allSettled(Array.from({ length: 30 }, () => c.channels.list()));
    expect(results.filter((r) => r.status === 'rejected').length).toBeGreaterThan(0);
    expect(rejected() - before).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 1100));
  });

  it('makes one request for a POST answered 500', async () => {
    gateway.failNext('POST', '/v2/messages', { status: 500, body: { error: 'internal' } });
    const before = gateway.requests.length;
    await expect(client().messages.send(text)).rejects.toBeInstanceOf(InternalServerError);
    expect(gateway.requests.length - before).toBe(1);
  });

  it('times out an attempt that gets no answer', async () => {
    gateway.failNext('GET', '/v2/channels', { status: 200, delayMs: 400 });
    const error = await client({ timeout: 50, maxRetries: 0 })
      .channels.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayTimeoutError);
  });

  it('repeats a POST whose connection was refused: it surely never left', async () => {
    const port = await freePort();
    let calls = 0;
    const c = new GatewayClient({
      baseUrl: `http://127.0.0.1:${port}`,
      token: 't',
      retryBackoff: { initialDelayMs: 1 },
      maxRetries: 2,
      fetch: (input, init) => {
        calls++;
        return fetch(input, init);
      },
    });
    const error = await c.messages.send(text).catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'GatewayConnectionError',
      errorCode: 'ECONNREFUSED',
      retryable: true,
    });
    expect(calls).toBe(3);
  });
});

describe('GatewayClient cannot be frozen or misled, over real HTTP', () => {
  let standIn: FakeGateway;
  beforeAll(async () => {
    standIn = await createFakeGateway({
      rateLimit: { requests: 1000, intervalMs: 1000 },
      channels: [{ channel_id: 'ch-1' }],
    });
  });
  afterAll(() => standIn.close());

  it('a redirect is an answer: the loopback server it points to receives nothing', async () => {
    let elsewhere = 0;
    let status = 307;
    const other = await listen((_req, res) => {
      elsewhere++;
      res.end('{"data":{"request_id":"r","chat_id":"c"}}');
    });
    const redirecting = await listen((_req, res) => {
      res.writeHead(status, { location: `${other.url}/v2/messages` }).end();
    });
    try {
      for (status of [301, 302, 307, 308]) {
        const c = new GatewayClient({ baseUrl: redirecting.url, token: 'redirect-token' });
        const error = await c.messages.send(text).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(GatewayApiError);
        expect(error).toMatchObject({ status, retryable: false });
      }
      expect(elsewhere).toBe(0);
    } finally {
      await Promise.all([other.close(), redirecting.close()]);
    }
  });

  it('a 429 with Retry-After: 3600 fails its call fast and does not stop an unrelated call', async () => {
    standIn.failNext('GET', '/v2/channels', { status: 429, headers: { 'retry-after': '3600' } });
    const c = new GatewayClient({
      baseUrl: standIn.url,
      token: standIn.token,
      retryBackoff: { maxDelayMs: 300 },
    });
    const error = await c.channels.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ retryAfterMs: 3_600_000 });
    // Held for maxDelayMs (300 ms), not an hour: the test's own time limit is the proof.
    await expect(c.webhooks.list()).resolves.toBeInstanceOf(Array);
  });

  it('100k calls queued on one signal abort in linear time, and none is sent', {
    timeout: 120_000,
  }, async () => {
    const abortAll = async (n: number) => {
      const c = new GatewayClient({
        baseUrl: standIn.url,
        token: standIn.token,
        rateLimit: { requests: 1, intervalMs: 600_000, maxQueue: n },
      });
      await c.channels.list(); // takes the only slot for ten minutes
      const before = standIn.requests.length;
      const controller = new AbortController();
      const calls = Array.from({ length: n }, () => c.channels.list({ signal: controller.signal }));
      await new Promise((r) => setImmediate(r));
      const t0 = process.cpuUsage();
      controller.abort(new Error('shutdown'));
      const results = await Promise.allSettled(calls);
      const used = process.cpuUsage(t0);
      const ms = (used.user + used.system) / 1000;
      expect(
        results.every(
          (r) => r.status === 'rejected' && ((r.reason as Error).cause as Error)?.message === 'shutdown',
        ),
      ).toBe(true);
      expect(c.pendingRequests).toBe(0);
      expect(standIn.requests.length - before).toBe(0);
      return ms;
    };
    await abortAll(10_000); // warm-up
    const small = await abortAll(10_000);
    const large = await abortAll(100_000);
    console.log(`abort of 10k queued calls: ${small.toFixed(0)} ms CPU; of 100k: ${large.toFixed(0)} ms CPU`);
    // CPU time, not wall time: another process on the machine does not inflate it. Linear: ~10x the time for 10x the calls; quadratic (one listener list walked per call) is ~100x.
    expect(large / small).toBeLessThan(35);
  });
});
