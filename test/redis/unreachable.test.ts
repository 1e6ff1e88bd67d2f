import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/core/errors.js';
import { redisDedupeStore, redisDeliveryStore, redisRateLimiter } from '../../src/redis.js';
import type { MessageStatusUpdate } from '../../src/schemas/events-v2.js';
import { DeliveryTracker } from '../../src/tracking/delivery-tracker.js';
import { CLIENTS, connectClient, skipRedis } from '../support/redis-clients.js';
import { useRedisServer } from '../support/redis-server.js';

const timeoutMs = 300;
const status = { request_id: 'r1', message_id: null, status: 'sent', reason: null } as MessageStatusUpdate;

/** What `promise` rejected with (undefined when it resolved). */
const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (e: unknown) => e,
  );

describe.skipIf(skipRedis)('Redis stopped mid-run: every call fails fast, retryable, and says why', () => {
  const server = useRedisServer();

  describe.each(CLIENTS)('with %s', (kind) => {
    it('fails within its timeout while Redis is down, and works again once it is back', {
      timeout: 120_000,
    }, async () => {
      const { redis, close } = await connectClient(kind, server.url);
      const dedupe = redisDedupeStore(redis, { timeoutMs, prefix: `u:${kind}:` });
      const limiter = redisRateLimiter(redis, { key: `u:${kind}`, requests: 5, intervalMs: 200, timeoutMs });
      const deliveries = redisDeliveryStore(redis, { timeoutMs, prefix: `u:${kind}:` });
      const tracker = new DeliveryTracker({ store: deliveries });
      try {
        await dedupe.claim('warm', 10_000); // the claim script is loaded, the release script not yet
        // mid-run: 20 starts queued for a limit of 5 per 200 ms when Redis goes away. Settled from
        // the start: an ask in flight when the connection closes rejects its waiters during the stop.
        const queued = Promise.allSettled(
          Array.from({ length: 20 }, () => limiter.acquire().then((release) => release())),
        );
        await server.stop();
        const outcomes = await queued;
        const failures = outcomes.filter((o) => o.status === 'rejected').map((o) => o.reason);
        expect(failures.length).toBeGreaterThan(0); // none hangs: every one settled
        for (const failure of failures) expect(failure).toMatchObject({ retryable: true });

        // Timed out while the client holds it: sent after the restart, answered NOSCRIPT and sent
        // again; the release that takes it back must run after that, not before.
        const late = dedupe.claim('late', 10_000).catch((e: unknown) => e);
        const calls = [
          dedupe.claim('k', 10_000),
          dedupe.complete('k', 10_000, { id: 1 }),
          dedupe.release('k'),
          limiter.acquire(),
          deliveries.record(status),
          tracker.waitFor('r1', { timeoutMs: 60_000 }),
          Promise.resolve(tracker.observe(status)),
        ];
        // each settles (a hang would outlast the test's time-out), named and retryable
        for (const error of await Promise.all(calls.map(rejection))) {
          expect(error).toBeInstanceOf(GatewayError);
          expect(error).toMatchObject({
            retryable: true,
            message: expect.stringMatching(/Redis is unreachable/),
          });
        }

        await server.start();
        await expect
          .poll(() => dedupe.claim('after', 10_000).catch(() => 'down'), { timeout: 30_000 })
          .toMatchObject({
            state: 'claimed',
          });
        await late;
        await expect
          .poll(
            () =>
              dedupe.claim('late', 10_000).then(
                (r) => r.state,
                () => 'down',
              ),
            { timeout: 30_000 },
          )
          .toBe('claimed');
        (await limiter.acquire())();
        await tracker.observe({ ...status, status: 'delivered' });
        await expect(tracker.waitFor('r1', { timeoutMs: 2000 })).resolves.toMatchObject({
          status: 'delivered',
        });
      } finally {
        await server.start();
        await deliveries.close();
        await close();
      }
    });

    // The rare timing of the test above made certain: Redis frozen, so the head's ask is written
    // and unanswered, then killed, so its connection closes under it and the client fails the ask
    // (node-redis at once, ioredis after its one retry), well before its time-out; the others ask
    // again while Redis is down. The waiters are settled from the start, as a caller does: a
    // rejection Vitest reports here is one of the SDK's own promises.
    it('fails the ask in flight when its connection closes: retryable, nothing left unhandled', {
      timeout: 120_000,
    }, async () => {
      const { redis, close } = await connectClient(kind, server.url);
      const limiter = redisRateLimiter(redis, { key: `u-flight:${kind}`, requests: 30, timeoutMs: 1000 });
      try {
        process.kill(server.pid as number, 'SIGSTOP');
        const queued = Promise.allSettled(
          Array.from({ length: 3 }, () => limiter.acquire().then((release) => release())),
        );
        await new Promise((resolve) => setTimeout(resolve, 50)); // the head's ask is written
        await server.stop('SIGKILL');
        const [head, ...rest] = await queued;
        // failed by the closed connection, not by the time-out ('got no answer within')
        expect(head).toMatchObject({
          status: 'rejected',
          reason: {
            retryable: true,
            message: expect.stringMatching(/^Redis is unreachable: rate limiter acquire failed/),
          },
        });
        for (const outcome of rest) {
          expect(outcome).toMatchObject({
            status: 'rejected',
            reason: { retryable: true, message: expect.stringMatching(/^Redis is unreachable/) },
          });
        }
      } finally {
        if (server.pid !== undefined) process.kill(server.pid, 'SIGCONT'); // not killed: a failure above
        await server.start();
        await close();
      }
    });
  });
});
