// The error contract: every abort is a GatewayAbortError, a long error page keeps its status's
// class and retry rule, the service's code is read wherever the body holds it.
import { describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import { AuthenticationError, GatewayAbortError, InternalServerError } from '../../src/core/errors.js';
import { DeliveryTracker } from '../../src/tracking/delivery-tracker.js';
import { listen } from '../support/servers.js';

async function answering(status: number, body: string) {
  let requests = 0;
  const server = await listen((_req, res) => {
    requests++;
    res.writeHead(status, { 'content-type': 'text/html' }).end(body);
  });
  return { ...server, requests: () => requests };
}

describe('Errors: no holes left', () => {
  it('a POST answered 502 with a page over maxResponseBytes is an InternalServerError, not retryable, sent once', async () => {
    const server = await answering(502, `<html>${'x'.repeat(5000)}</html>`);
    try {
      const client = new GatewayClient({ baseUrl: server.url, token: 't-1234', maxResponseBytes: 1024 });
      const error = await client.channels
        .create({ transport: 'whatsapp', credentials: {} } as never)
        .catch((e) => e);
      expect(error).toBeInstanceOf(InternalServerError);
      expect(error).toMatchObject({ status: 502, retryable: false });
      expect(server.requests()).toBe(1);
      expect(JSON.stringify(error).length).toBeLessThan(3000);
    } finally {
      await server.close();
    }
  });

  it('a GET answered 503 with a page over maxResponseBytes keeps its class and is retried', async () => {
    const server = await answering(503, 'y'.repeat(5000));
    try {
      const client = new GatewayClient({
        baseUrl: server.url,
        token: 't-1234',
        maxResponseBytes: 1024,
        maxRetries: 1,
        retryBackoff: { initialDelayMs: 1, maxDelayMs: 2 },
      });
      const error = await client.channels.list().catch((e) => e);
      expect(error).toBeInstanceOf(InternalServerError);
      expect(error).toMatchObject({ status: 503, retryable: true });
      expect(server.requests()).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('a 401 answered {"code": …} keeps the service code', async () => {
    const server = await listen((_req, res) => {
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end('{"code":"OAUTH_TOKEN_UNKNOWN_OR_REVOKED"}');
    });
    try {
      const client = new GatewayClient({ baseUrl: server.url, token: 't-1234' });
      const error = await client.channels.list().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthenticationError);
      expect((error as AuthenticationError).code).toBe('OAUTH_TOKEN_UNKNOWN_OR_REVOKED');
    } finally {
      await server.close();
    }
  });

  it('DeliveryTracker.waitFor aborted rejects with GatewayAbortError, the reason as cause', async () => {
    const tracker = new DeliveryTracker();
    const controller = new AbortController();
    const waiting = tracker.waitFor('r-1', { signal: controller.signal }).catch((e) => e);
    const reason = new Error('shutting down');
    controller.abort(reason);
    const error = await waiting;
    expect(error).toBeInstanceOf(GatewayAbortError);
    expect(error.cause).toBe(reason);
    const already = await tracker.waitFor('r-2', { signal: controller.signal }).catch((e) => e);
    expect(already).toBeInstanceOf(GatewayAbortError);
  });

  it('sendMany with an aborted signal: every item fails with GatewayAbortError', async () => {
    const client = new GatewayClient({ baseUrl: 'http://127.0.0.1:9', token: 't-1234' });
    const controller = new AbortController();
    controller.abort();
    const item = {
      channel_id: 'ch',
      recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
      text: 'hi',
    } as const;
    const results = await client.messages.sendMany([item, item], { signal: controller.signal });
    for (const result of results) {
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error).toBeInstanceOf(GatewayAbortError);
        expect(result.error.cause).toBe(controller.signal.reason);
      }
    }
  });
});
