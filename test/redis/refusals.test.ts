// Redis answering with an error is not Redis being unreachable: the failure names Redis's error,
// keeps it as `cause`, and is not retryable (issue 20: both read "Redis is unreachable" before).
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/core/errors.js';
import { redisDedupeStore, redisDeliveryStore, redisRateLimiter } from '../../src/redis.js';
import type { MessageStatusUpdate } from '../../src/schemas/events-v2.js';
import { CLIENTS, connectClient, sendRaw, skipRedis } from '../support/redis-clients.js';
import { useRedisServer } from '../support/redis-server.js';

const status = { request_id: 'r1', message_id: null, status: 'sent', reason: null } as MessageStatusUpdate;

async function failureOf(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

describe.skipIf(skipRedis)('Redis refusing a call: named, kept as cause, not retryable', () => {
  const server = useRedisServer();

  describe.each(CLIENTS)('with %s', (kind) => {
    it('WRONGTYPE: a key of the store holding another type', async () => {
      const { redis, close } = await connectClient(kind, server.url);
      const send = (args: string[]) => sendRaw(redis, args);
      try {
        await send(['HSET', `w:${kind}:{k}`, 'f', 'v']);
        await send(['SET', `w:${kind}:rl:{acct}:slots`, 'not a sorted set']);
        const failures = await Promise.all([
          failureOf(redisDedupeStore(redis, { prefix: `w:${kind}:` }).claim('k', 1000)),
          failureOf(redisRateLimiter(redis, { key: 'acct', prefix: `w:${kind}:rl:` }).acquire()),
        ]);
        for (const error of failures) {
          expect(error.retryable).toBe(false);
          expect(error.message).toMatch(/Redis refused .*\(WRONGTYPE\)/);
          expect(error.message).not.toMatch(/unreachable/);
          expect((error.cause as Error).message).toMatch(/^WRONGTYPE/);
        }
      } finally {
        await close();
      }
    });

    it('NOPERM: an ACL user without the commands the stores need', async () => {
      const admin = await connectClient(kind, server.url);
      const user = `limited-${kind}`;
      const acl = ['ACL', 'SETUSER', user, 'on', '>pw', '~*', '&*', '+@all', '-evalsha', '-eval'];
      await sendRaw(admin.redis, acl);
      await admin.close();
      const { redis, close } = await connectClient(kind, `redis://${user}:pw@127.0.0.1:${server.port}`);
      try {
        const failures = await Promise.all([
          failureOf(redisDedupeStore(redis, { prefix: `n:${kind}:` }).claim('k', 1000)),
          failureOf(redisRateLimiter(redis, { key: `n:${kind}` }).acquire()),
          failureOf(redisDeliveryStore(redis, { prefix: `n:${kind}:` }).record(status)),
        ]);
        for (const error of failures) {
          expect(error.retryable).toBe(false);
          expect(error.message).toMatch(/Redis refused .*\(NOPERM\)/);
          expect((error.cause as Error).message).toMatch(/^NOPERM/);
        }
      } finally {
        await close();
      }
    });
  });
});
