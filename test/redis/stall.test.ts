import { describe, expect, it } from 'vitest';
import { redisDedupeStore, redisRateLimiter } from '../../src/redis.js';
import { CLIENTS, connectClient, skipRedis } from '../support/redis-clients.js';
import { useRedisServer } from '../support/redis-server.js';

const timeoutMs = 200;

/** Resolves with what `promise` resolves with, or 'late' after `ms`. */
function orLate<T>(promise: Promise<T>, ms: number): Promise<T | 'late'> {
  return Promise.race([promise, new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), ms))]);
}

// Redis stalls (SIGSTOP: the connection stays open, the commands wait in its socket) past a
// call's time-out, then goes on: the timed-out command runs late, and what takes it back must run
// before the next call of the same process, which was written right behind it.
describe.skipIf(skipRedis)('Redis stalled past a time-out, then going on', () => {
  const server = useRedisServer();

  describe.each(CLIENTS)('with %s', (kind) => {
    it('a timed-out grant or claim does not hold off the next call once Redis answers', {
      timeout: 120_000,
    }, async () => {
      const { redis, close } = await connectClient(kind, server.url);
      const limiter = redisRateLimiter(redis, {
        key: `stall:${kind}`,
        requests: 1,
        intervalMs: 30_000,
        timeoutMs,
      });
      const dedupe = redisDedupeStore(redis, { timeoutMs, prefix: `stall:${kind}:` });
      const pid = server.pid as number;
      try {
        process.kill(pid, 'SIGSTOP');
        const asked = await limiter.acquire().then(
          () => 'granted',
          () => 'failed',
        );
        const claimed = await dedupe.claim('k', 10_000).then(
          (r) => r.state,
          () => 'failed',
        );
        expect([asked, claimed]).toEqual(['failed', 'failed']);
        process.kill(pid, 'SIGCONT');
        // Written at once, behind the late commands: their take-back must come before these.
        const acquire = limiter.acquire();
        const claim = dedupe.claim('k', 10_000);
        expect(
          await orLate(
            claim.then((r) => r.state),
            3000,
          ),
        ).toBe('claimed');
        const release = await orLate(acquire, 3000);
        expect(release).not.toBe('late');
        if (release !== 'late') release();
      } finally {
        process.kill(pid, 'SIGCONT');
        await close();
      }
    });
  });
});
