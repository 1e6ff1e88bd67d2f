import { HttpResponse, http } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GatewayTimeoutError, RateLimitError } from '../../src/core/errors.js';
import { RateLimiter, type RateLimiterLike, type Release } from '../../src/core/rate-limiter.js';
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from '../../src/core/retry-policy.js';
import { BASE, testClient, textMessage, useMsw } from '../support/msw.js';

const { server, seen } = useMsw();

/** A real RateLimiter that records what the client asks of it, as a shared limiter would see it. */
class RecordingLimiter implements RateLimiterLike {
  readonly pauses: number[] = [];
  readonly inner = new RateLimiter();
  acquire(signal?: AbortSignal): Promise<Release> {
    return this.inner.acquire(signal);
  }
  pause(ms: number): void {
    this.pauses.push(ms);
    this.inner.pause(ms);
  }
}

/** Answers 429 (with these headers) `times` times, then 200. */
function tooMany(times: number, headers: Record<string, string> = {}) {
  let left = times;
  return () =>
    left-- > 0
      ? new HttpResponse(null, { status: 429, headers })
      : HttpResponse.json({ data: [], meta: { timestamp: 1 } });
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Lets msw and the client run until `ms` of fake time have passed. */
const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

describe('A 429 never freezes the client (Retries and the rate limit)', () => {
  it('caps the hold at retryBackoff.maxDelayMs and passes the capped figure to a shared limiter', async () => {
    server.use(http.get(`${BASE}/v2/channels`, tooMany(1, { 'retry-after': '3600' })));
    const limiter = new RecordingLimiter();
    const client = testClient({ rateLimit: limiter, retryBackoff: { maxDelayMs: 60_000 } });
    const error = await client.channels.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ retryAfterMs: 3_600_000 }); // the hint stays on the error
    expect(limiter.pauses).toEqual([60_000]);
    expect(seen).toHaveLength(1); // longer than the cap: failed at once, not waited out
  });

  it('holds an unrelated call only until the cap, not for the hour asked', async () => {
    server.use(
      http.get(`${BASE}/v2/channels`, tooMany(1, { 'retry-after': '3600' })),
      http.get(`${BASE}/v2/webhooks`, () => HttpResponse.json({ data: [] })),
    );
    const client = testClient({ retryBackoff: { maxDelayMs: 10_000 } });
    await expect(client.channels.list()).rejects.toBeInstanceOf(RateLimitError);
    let done = false;
    const other = client.webhooks.list().then(() => {
      done = true;
    });
    await advance(9_000);
    expect(done).toBe(false);
    await advance(1_100);
    await other;
    expect(done).toBe(true);
  });

  for (const [label, value] of [
    ['absurd (1e9 s: it would overflow a timer)', '1000000000'],
    ['negative', '-5'],
    ['unreadable', 'soon'],
    ['absent', undefined],
  ] as const) {
    it(`treats a ${label} Retry-After as absent: the backoff decides the wait and the hold`, async () => {
      const headers: Record<string, string> = value === undefined ? {} : { 'retry-after': value };
      let first = true;
      server.use(
        http.post(`${BASE}/v2/messages`, () => {
          if (!first) return HttpResponse.json({ data: { request_id: 'r', chat_id: 'c' } });
          first = false;
          return new HttpResponse(null, { status: 429, headers });
        }),
      );
      const limiter = new RecordingLimiter();
      const client = testClient({
        rateLimit: limiter,
        retryBackoff: { initialDelayMs: 2_000, maxDelayMs: 60_000 },
      });
      const sent = client.messages.send(textMessage);
      await advance(900); // the backoff of a first repeat is between 1 000 and 2 000 ms
      expect(seen).toHaveLength(1);
      expect(limiter.pauses).toHaveLength(1);
      expect(limiter.pauses[0]).toBeGreaterThanOrEqual(1_000);
      expect(limiter.pauses[0]).toBeLessThanOrEqual(2_000);
      await advance(1_200);
      await expect(sent).resolves.toEqual({ request_id: 'r', chat_id: 'c' });
      expect(seen).toHaveLength(2);
    });
  }

  it('reads Retry-After strictly', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('-0.5', now)).toBeUndefined();
    expect(parseRetryAfter('1000000000', now)).toBeUndefined();
    expect(parseRetryAfter(String(MAX_RETRY_AFTER_MS / 1000), now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('Fri, 01 Jan 2100 00:00:00 GMT', now)).toBeUndefined();
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('0', now)).toBe(0);
  });
});

describe('`timeout` covers the wait in the rate limiter’s queue', () => {
  it('rejects a call that cannot start in time with GatewayTimeoutError; it is never sent', async () => {
    server.use(http.get(`${BASE}/v2/channels`, () => HttpResponse.json({ data: [] })));
    const client = testClient({ rateLimit: { requests: 1, intervalMs: 60_000 }, timeout: 1_000 });
    await client.channels.list(); // the only slot, for a minute
    const waiting = client.channels.list().catch((e: unknown) => e);
    await advance(999);
    expect(client.pendingRequests).toBe(1);
    await advance(2);
    const error = await waiting;
    expect(error).toBeInstanceOf(GatewayTimeoutError);
    expect(error).toMatchObject({ queued: true, retryable: true, timeoutMs: 1_000 });
    expect((error as Error).message).toMatch(/not sent/);
    expect(client.pendingRequests).toBe(0);
    expect(seen).toHaveLength(1);
  });

  it('takes a call’s own timeout for the queue too', async () => {
    server.use(http.get(`${BASE}/v2/channels`, () => HttpResponse.json({ data: [] })));
    const client = testClient({ rateLimit: { requests: 1, intervalMs: 60_000 } });
    await client.channels.list();
    const waiting = client.channels.list({ timeout: 50 }).catch((e: unknown) => e);
    await advance(51);
    await expect(waiting).resolves.toBeInstanceOf(GatewayTimeoutError);
  });

  it('bounds a shared limiter that ignores its signal, and gives back a slot granted too late', async () => {
    let grant!: (release: Release) => void;
    let released = 0;
    const stubborn: RateLimiterLike = {
      acquire: () =>
        new Promise<Release>((resolve) => {
          grant = resolve;
        }),
      pause: () => {},
    };
    const client = testClient({ rateLimit: stubborn, timeout: 500 });
    const waiting = client.channels.list().catch((e: unknown) => e);
    await advance(501);
    await expect(waiting).resolves.toMatchObject({ name: 'GatewayTimeoutError', queued: true });
    grant(() => released++);
    await advance(1);
    expect(released).toBe(1);
    expect(seen).toHaveLength(0);
  });
});
