import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/core/errors.js';
import { RateLimiter } from '../../src/core/rate-limiter.js';
import { BASE, testClient, useMsw } from '../support/msw.js';

const { server, seen } = useMsw();

describe('Rate limiter', () => {
  it('starts at most `requests` in any window and lets the rest wait', async () => {
    const limiter = new RateLimiter({ requests: 3, intervalMs: 100 });
    const starts: number[] = [];
    const t0 = performance.now();
    const all = Promise.all(
      Array.from({ length: 7 }, () =>
        limiter.acquire().then((release) => {
          starts.push(performance.now() - t0);
          release();
        }),
      ),
    );
    // three start at once: before the event loop's next turn, which no window's end can precede
    await new Promise((resolve) => setImmediate(resolve));
    expect(starts).toHaveLength(3);
    await all;
    // Sliding window: no 4 starts within any 100 ms.
    for (let i = 3; i < starts.length; i++) {
      expect((starts[i] as number) - (starts[i - 3] as number)).toBeGreaterThanOrEqual(99);
    }
  });

  it('serves waiters first in, first out', async () => {
    const limiter = new RateLimiter({ requests: 1, intervalMs: 20 });
    const order: number[] = [];
    await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        limiter.acquire().then((release) => {
          order.push(i);
          release();
        }),
      ),
    );
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it('holds a slot until the answer and one window after it', async () => {
    let now = 0;
    const limiter = new RateLimiter({ requests: 1, intervalMs: 100 }, () => now);
    const release = await limiter.acquire();
    let started = false;
    const next = limiter.acquire().then((r) => {
      started = true;
      return r;
    });
    now = 500; // long past the window, but the first request has no answer yet
    await new Promise((r) => setTimeout(r, 20));
    expect(started).toBe(false);
    release(); // answered at 500: the slot frees at 600
    now = 599;
    await new Promise((r) => setTimeout(r, 20));
    expect(started).toBe(false);
    now = 600;
    (await next)();
    expect(started).toBe(true);
  });

  it('removes an aborted waiter at once, rejecting with the abort reason', async () => {
    const limiter = new RateLimiter({ requests: 1, intervalMs: 10_000 });
    await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    expect(limiter.pending).toBe(1);
    const reason = new Error('user cancelled');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(limiter.pending).toBe(0);
  });

  it('rejects an already aborted signal without queueing', async () => {
    const limiter = new RateLimiter({ requests: 1, intervalMs: 10_000 });
    await expect(limiter.acquire(AbortSignal.abort('gone'))).rejects.toBe('gone');
    expect(limiter.pending).toBe(0);
  });

  it('bounds its queue: one waiter too many is a retryable GatewayError', async () => {
    const limiter = new RateLimiter({ requests: 1, intervalMs: 10_000, maxQueue: 2 });
    const controller = new AbortController();
    await limiter.acquire();
    const waiting = [limiter.acquire(controller.signal), limiter.acquire(controller.signal)];
    const over = await limiter.acquire().catch((e: unknown) => e);
    expect(over).toBeInstanceOf(GatewayError);
    expect(over).toMatchObject({ retryable: true });
    controller.abort();
    await Promise.allSettled(waiting);
  });

  it('holds new starts after pause()', async () => {
    const limiter = new RateLimiter({ requests: 100, intervalMs: 1000 });
    limiter.pause(120);
    const t0 = performance.now();
    await limiter.acquire();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(115);
  });

  it('is shared by every namespace of one client', async () => {
    server.use(
      http.get(`${BASE}/v2/channels`, () => HttpResponse.json({ data: [] })),
      http.get(`${BASE}/v2/webhooks`, () => HttpResponse.json({ data: [] })),
    );
    const client = testClient({ rateLimit: { requests: 2, intervalMs: 150 } });
    const t0 = performance.now();
    await Promise.all([client.channels.list(), client.webhooks.list(), client.channels.list()]);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(145);
    expect(seen).toHaveLength(3);
  });

  it('holds the whole client after a 429 until Retry-After passes', async () => {
    let first = true;
    server.use(
      http.get(`${BASE}/v2/channels`, () => {
        if (!first) return HttpResponse.json({ data: [] });
        first = false;
        return new HttpResponse(null, { status: 429, headers: { 'retry-after': '0.15' } });
      }),
      http.get(`${BASE}/v2/webhooks`, () => HttpResponse.json({ data: [] })),
    );
    const client = testClient({ maxRetries: 0, retryBackoff: { maxDelayMs: 5000 } });
    const t0 = performance.now();
    await expect(client.channels.list()).rejects.toMatchObject({ status: 429 });
    await client.webhooks.list(); // another namespace, held all the same
    expect(performance.now() - t0).toBeGreaterThanOrEqual(145);
    expect(seen).toHaveLength(2);
  });

  it('turns off with rateLimit: false: 600 requests in flight at once, over the default 500', async () => {
    // Every answer waits until 600 requests are in flight (or 2 s pass, so nothing hangs): with
    // any limiter at most 500 could be, and the count below would fall short.
    let inFlight = 0;
    let most = 0;
    let open!: () => void;
    const all = new Promise<void>((r) => {
      open = r;
    });
    const timer = setTimeout(open, 2000);
    server.use(
      http.get(`${BASE}/v2/channels`, async () => {
        most = Math.max(most, ++inFlight);
        if (inFlight === 600) open();
        await all;
        inFlight--;
        return HttpResponse.json({ data: [] });
      }),
    );
    const client = testClient({ rateLimit: false });
    await Promise.all(Array.from({ length: 600 }, () => client.channels.list()));
    clearTimeout(timer);
    expect(most).toBe(600);
  });
});
