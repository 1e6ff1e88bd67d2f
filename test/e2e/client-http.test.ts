import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import { GatewayTimeoutError, InternalServerError } from '../../src/core/errors.js';
import { createFakeGateway, type FakeGateway } from '../../src/testing.js';

const text = {
  channel_id: 'ch-1',
  recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
  text: 'Hi',
} as const;

describe('GatewayClient over real HTTP (the fake gateway on 127.0.0.1)', () => {
  let gateway: FakeGateway;
  beforeAll(async () => {
    gateway = await createFakeGateway({ rateLimit: { requests: 20, intervalMs: 1000 } });
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
    const port = await closedPort();
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

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as { port: number };
  await new Promise((r) => probe.close(r));
  return port;
}
