import { getEventListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GatewayError } from '../../src/core/errors.js';
import { type RedisClientLike, redisRateLimiter } from '../../src/redis.js';
import { createFakeGateway, type FakeGateway } from '../../src/testing.js';
import { CLIENTS, connectClient, skipRedis } from '../support/redis-clients.js';
import { onEveryNode, TARGETS, useRedisTarget } from '../support/redis-target.js';
import { runSenders } from './fleet-processes.js';

/** The most starts that any window of `intervalMs`, whatever its phase, contains. */
function busiestWindow(starts: number[], intervalMs: number): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while ((sorted[i] as number) - (sorted[j] as number) >= intervalMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/** The client, counting the NOSCRIPT answers it gets; `pending` holds every command it sent. */
function counting(
  redis: RedisClientLike,
  seen: { noscript: number; pending: Promise<unknown>[] },
): RedisClientLike {
  return new Proxy(redis, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      if (property !== 'call' && property !== 'sendCommand') return value.bind(target);
      return (...args: unknown[]) => {
        const sent = value.apply(target, args) as Promise<unknown>;
        seen.pending.push(
          sent.catch((error: unknown) => {
            if (error instanceof Error && error.message.startsWith('NOSCRIPT')) seen.noscript++;
          }),
        );
        return sent;
      };
    },
  });
}

describe.skipIf(skipRedis).each(TARGETS)('redisRateLimiter on a real Redis (%s)', (where) => {
  const target = useRedisTarget(where);
  // What happens in the process's own queue, whatever Redis is: once, on the single server.
  const queueOnly = it.runIf(where === 'single');

  describe.each(CLIENTS)('with %s', (kind) => {
    let clients: Awaited<ReturnType<typeof connectClient>>[] = [];
    beforeAll(async () => {
      clients = await Promise.all([0, 1, 2].map(() => connectClient(kind, target.url)));
    });
    afterAll(() => Promise.all(clients.map((c) => c.close())));
    let n = 0;
    const limiters = (options: {
      requests: number;
      intervalMs: number;
      leaseMs?: number;
      maxQueue?: number;
    }) => {
      const key = `${kind}-${++n}`;
      return clients.map((c) => redisRateLimiter(c.redis, { key, ...options }));
    };

    it('three limiters sharing a key start no more than `requests` in any window, whatever its phase', async () => {
      const shared = limiters({ requests: 10, intervalMs: 300 });
      const starts: number[] = [];
      await Promise.all(
        Array.from({ length: 36 }, async (_, i) => {
          const release = await (shared[i % 3] as (typeof shared)[number]).acquire();
          starts.push(Date.now());
          await sleep(5);
          release();
        }),
      );
      expect(starts).toHaveLength(36);
      expect(busiestWindow(starts, 300)).toBeLessThanOrEqual(10);
    });

    it('processes waiting together share the first window: no one asker takes all of it', async () => {
      const shared = limiters({ requests: 30, intervalMs: 400 });
      // The window is full and frees at once in 400 ms, when all three have 30 waiting each.
      const full = await Promise.all(Array.from({ length: 30 }, () => shared[0]!.acquire()));
      for (const release of full) release();
      const granted = [0, 0, 0];
      const stop = new AbortController(); // the 60 left waiting for the next window leave at the end
      for (const [i, limiter] of shared.entries()) {
        for (let n = 0; n < 30; n++) {
          limiter.acquire(stop.signal).then(
            () => granted[i]!++,
            () => {},
          );
        }
      }
      try {
        await vi.waitFor(() => expect(granted.reduce((a, b) => a + b)).toBe(30), { timeout: 30_000 });
        await sleep(50); // granted slots are never released here: no more come later
        // One ask may take a tenth of the limit, so the three asks interleave at Redis.
        expect(granted.reduce((a, b) => a + b)).toBe(30);
        expect(Math.min(...granted)).toBeGreaterThan(0);
        expect(Math.max(...granted)).toBeLessThan(30);
      } finally {
        stop.abort();
      }
    });

    it('starts the requests of one process first in, first out', async () => {
      const [limiter] = limiters({ requests: 3, intervalMs: 100 });
      const order: number[] = [];
      await Promise.all(
        Array.from({ length: 9 }, async (_, i) => {
          const release = await limiter!.acquire();
          order.push(i);
          release();
        }),
      );
      expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    });

    queueOnly('an aborted signal leaves the queue at once, with its reason', async () => {
      const [limiter] = limiters({ requests: 1, intervalMs: 60_000 });
      const first = await limiter!.acquire();
      const controller = new AbortController();
      const waiting = limiter!.acquire(controller.signal);
      await sleep(20);
      expect(limiter!.pending).toBe(1);
      // the slot comes back only in a minute: rejecting now is leaving the queue at once
      controller.abort(new Error('call timed out'));
      await expect(waiting).rejects.toThrow('call timed out');
      expect(limiter!.pending).toBe(0);
      first();
    });

    queueOnly(
      '40,000 waiters on one shared signal: one abort listener on it, all gone at the abort',
      async () => {
        const [limiter] = limiters({ requests: 1, intervalMs: 60_000, maxQueue: 40_000 });
        const first = await limiter!.acquire();
        const controller = new AbortController();
        const waiting = Array.from({ length: 40_000 }, () =>
          limiter!.acquire(controller.signal).catch((e) => e),
        );
        expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1); // was one per waiter: O(n²)
        controller.abort(new Error('shutdown'));
        const reasons = await Promise.all(waiting);
        expect(reasons.every((r) => (r as Error).message === 'shutdown')).toBe(true);
        expect(limiter!.pending).toBe(0);
        first();
      },
    );

    it('a 429 seen by one process holds the starts of all', async () => {
      const [a, b] = limiters({ requests: 100, intervalMs: 1000 });
      await a!.pause(300);
      const t0 = performance.now();
      (await b!.acquire())();
      expect(performance.now() - t0).toBeGreaterThanOrEqual(250);
    });

    it('a cold start sends each script by its source once: no NOSCRIPT round trip, which a busy process answers late', async () => {
      await onEveryNode(target, ['SCRIPT', 'FLUSH']);
      const seen = { noscript: 0, pending: [] as Promise<unknown>[] };
      const limiter = redisRateLimiter(counting(clients[0]!.redis, seen), {
        key: `${kind}-${++n}`,
        requests: 100,
        intervalMs: 1000,
      });
      const releases = await Promise.all(Array.from({ length: 20 }, () => limiter.acquire()));
      // Releases of different ticks: one script call each, the later ones sent before the first is answered.
      for (const release of releases) {
        release();
        await new Promise(setImmediate);
      }
      (await limiter.acquire())();
      await new Promise(setImmediate);
      await Promise.all(seen.pending);
      expect(seen.pending.length).toBeGreaterThanOrEqual(20);
      expect(seen.noscript).toBe(0);
    });

    it('a slot whose process died frees when its lease ends', async () => {
      const [a, b] = limiters({ requests: 1, intervalMs: 50, leaseMs: 300 });
      await a!.acquire(); // never released: its process "died"
      const t0 = performance.now();
      (await b!.acquire())();
      expect(performance.now() - t0).toBeGreaterThanOrEqual(250);
    });

    queueOnly('bounds the local queue', async () => {
      const key = `${kind}-q`;
      const limiter = redisRateLimiter(clients[0]!.redis, {
        key,
        requests: 1,
        intervalMs: 60_000,
        maxQueue: 2,
      });
      const controller = new AbortController();
      const held = await limiter.acquire();
      const waiting = [limiter.acquire(controller.signal), limiter.acquire(controller.signal)];
      const error = await limiter.acquire().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayError);
      expect(error).toMatchObject({ retryable: true });
      controller.abort(new Error('done'));
      await Promise.allSettled(waiting);
      held();
    });
  });
});

describe.skipIf(skipRedis).each(TARGETS)(
  '3 processes sharing redisRateLimiter (on %s) against the fake gateway enforcing 20/1000 ms',
  (where) => {
    const target = useRedisTarget(where);
    let standIn: FakeGateway;
    const rejected = () => standIn.requests.filter((r) => r.status === 429).length;
    beforeAll(async () => {
      standIn = await createFakeGateway({ rateLimit: { requests: 20, intervalMs: 1000 } });
    });
    afterAll(() => standIn?.close());
    const run = (mode: 'redis' | 'memory', calls: number) =>
      runSenders({
        mode,
        processes: 3,
        calls,
        limit: '20/1000',
        kinds: [...CLIENTS],
        redisUrl: target.url,
        baseUrl: standIn.url,
        token: standIn.token,
      });

    it('3 × 40 calls (3 × 12 on the cluster) through one Redis limiter, ioredis and node-redis processes together: 0 answered 429', {
      timeout: 120_000,
    }, async () => {
      await sleep(1100); // a fresh window of the fake
      const before = rejected();
      // On the cluster fewer calls (still over two windows): the bench runs the large fleet there.
      const calls = where === 'single' ? 40 : 12;
      const { reports } = await run('redis', calls); // its time is measured by npm run bench, not asserted here
      expect(reports.flatMap((r) => r.errors)).toEqual([]);
      expect(reports.reduce((sum, r) => sum + r.ok, 0)).toBe(3 * calls);
      expect(rejected() - before).toBe(0);
    });

    // The baseline needs no Redis: once.
    it.runIf(where === 'single')(
      'the same three processes with only their own limiters get 429s',
      {
        timeout: 120_000,
      },
      async () => {
        await sleep(1100);
        const before = rejected();
        const { reports } = await run('memory', 20);
        expect(reports.reduce((sum, r) => sum + r.rejected, 0)).toBeGreaterThan(0);
        expect(rejected() - before).toBeGreaterThan(0);
      },
    );
  },
);
