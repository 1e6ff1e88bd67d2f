import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { GatewayConnectionError, InternalServerError, RateLimitError } from '../../src/core/errors.js';
import { backoffDelay, isRetryable, parseRetryAfter } from '../../src/core/retry-policy.js';
import { BASE, testClient, textMessage, useMsw } from '../support/msw.js';

const { server, seen } = useMsw();

/** Answers `statuses` in turn, then 200 with `data`. */
function sequence(statuses: number[], data: unknown, headers: Record<string, string> = {}) {
  let i = 0;
  return () => {
    const status = statuses[i++];
    if (status === undefined) return HttpResponse.json({ data, meta: { timestamp: 1 } });
    if (status === 0) return HttpResponse.error();
    return HttpResponse.json({ error: 'e' }, { status, headers });
  };
}

describe('Retries: GET, PATCH and DELETE repeat on the whole list', () => {
  for (const status of [408, 429, 500, 502, 503, 504]) {
    it(`repeats a GET after ${status}`, async () => {
      server.use(http.get(`${BASE}/v2/channels`, sequence([status], [])));
      await expect(testClient().channels.list()).resolves.toEqual([]);
      expect(seen).toHaveLength(2);
    });
  }

  it('repeats a PATCH after a connection error', async () => {
    server.use(http.patch(`${BASE}/v2/messages/m1`, sequence([0], { message_id: 'm1', chat_id: 'c' })));
    await expect(testClient().messages.edit('m1', { text: 'x' })).resolves.toMatchObject({
      message_id: 'm1',
    });
    expect(seen).toHaveLength(2);
  });

  it('repeats a DELETE after 503', async () => {
    server.use(http.delete(`${BASE}/v2/messages/m1`, sequence([503], { message_id: 'm1', chat_id: 'c' })));
    await testClient().messages.delete('m1');
    expect(seen).toHaveLength(2);
  });

  it('does not repeat 400, 401, 403, 404', async () => {
    for (const status of [400, 401, 403, 404]) {
      server.use(http.get(`${BASE}/v2/channels`, sequence([status, status, status], [])));
      await expect(testClient().channels.list()).rejects.toMatchObject({ status });
    }
    expect(seen).toHaveLength(4);
  });

  it('stops after maxRetries and throws the last error', async () => {
    server.use(http.get(`${BASE}/v2/channels`, sequence([500, 500, 500, 500], [])));
    await expect(testClient({ maxRetries: 2 }).channels.list()).rejects.toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(3);
  });

  it('maxRetries: 0 disables repeating', async () => {
    server.use(http.get(`${BASE}/v2/channels`, sequence([503], [])));
    await expect(testClient({ maxRetries: 0 }).channels.list()).rejects.toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(1);
  });

  it('takes maxRetries per call over the client default', async () => {
    server.use(http.get(`${BASE}/v2/channels`, sequence([503, 503, 503], [])));
    await expect(testClient({ maxRetries: 0 }).channels.list({ maxRetries: 3 })).resolves.toEqual([]);
    expect(seen).toHaveLength(4);
  });
});

describe('Retries: a POST is never repeated where it may have been sent', () => {
  it('makes exactly one request on a 500 to POST /v2/messages', async () => {
    server.use(http.post(`${BASE}/v2/messages`, sequence([500], { request_id: 'r', chat_id: 'c' })));
    const error = await testClient()
      .messages.send(textMessage)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ retryable: false });
    expect(seen.filter((s) => s.method === 'POST')).toHaveLength(1);
  });

  it('does not repeat a POST after a time-out', async () => {
    server.use(
      http.post(`${BASE}/v2/messages`, async () => {
        await new Promise((r) => setTimeout(r, 300));
        return HttpResponse.json({ data: { request_id: 'r', chat_id: 'c' } });
      }),
    );
    const error = await testClient({ timeout: 30 })
      .messages.send(textMessage)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'GatewayTimeoutError', retryable: false });
    expect(seen).toHaveLength(1);
  });

  it('does not repeat a POST after a connection reset (it may have arrived)', async () => {
    server.use(http.post(`${BASE}/v2/messages`, () => HttpResponse.error()));
    await expect(testClient().messages.send(textMessage)).rejects.toBeInstanceOf(GatewayConnectionError);
    expect(seen).toHaveLength(1);
  });

  it('repeats a POST after 429', async () => {
    server.use(
      http.post(
        `${BASE}/v2/messages`,
        sequence([429], { request_id: 'r1', chat_id: 'c' }, { 'retry-after': '0' }),
      ),
    );
    await expect(testClient().messages.send(textMessage)).resolves.toMatchObject({ request_id: 'r1' });
    expect(seen).toHaveLength(2);
  });
});

describe('Retries: waiting', () => {
  it('honours Retry-After in seconds', async () => {
    server.use(http.get(`${BASE}/v2/channels`, sequence([503], [], { 'retry-after': '0.2' })));
    const started = performance.now();
    await testClient({ retryBackoff: { initialDelayMs: 1, maxDelayMs: 5000 } }).channels.list();
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('gives up at once when Retry-After is longer than the cap, keeping the hint', async () => {
    server.use(http.get(`${BASE}/v2/channels`, sequence([429, 429], [], { 'retry-after': '3600' })));
    const error = await testClient()
      .channels.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ retryAfterMs: 3_600_000 });
    expect(seen).toHaveLength(1);
  });

  it('reads Retry-After in seconds and as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('backs off exponentially with jitter, under the cap', () => {
    expect(backoffDelay(1, { initialDelayMs: 100 }, () => 0)).toBe(50);
    expect(backoffDelay(1, { initialDelayMs: 100 }, () => 1)).toBe(100);
    expect(backoffDelay(3, { initialDelayMs: 100 }, () => 1)).toBe(400);
    expect(backoffDelay(20, { initialDelayMs: 100, maxDelayMs: 1000 }, () => 1)).toBe(1000);
  });

  it('classifies what is safe to repeat', () => {
    expect(isRetryable('POST', { kind: 'status', status: 503 })).toBe(false);
    expect(isRetryable('POST', { kind: 'status', status: 429 })).toBe(true);
    expect(isRetryable('POST', { kind: 'connection', errorCode: 'ENOTFOUND' })).toBe(true);
    expect(isRetryable('POST', { kind: 'connection', errorCode: 'ECONNRESET' })).toBe(false);
    expect(isRetryable('GET', { kind: 'connection', errorCode: 'ECONNRESET' })).toBe(true);
    expect(isRetryable('DELETE', { kind: 'timeout' })).toBe(true);
  });
});
