// Redis answering with an error is not Redis being unreachable: the failure names Redis's error,
// keeps it as `cause`, and is not retryable. On a single server and on a three-master cluster.
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/core/errors.js';
import { redisDedupeStore, redisDeliveryStore, redisRateLimiter } from '../../src/redis.js';
import type { MessageStatusUpdate } from '../../src/schemas/events-v2.js';
import { CLIENTS, connectClient, sendRaw, skipRedis } from '../support/redis-clients.js';
import { onEveryNode, TARGETS, useRedisTarget } from '../support/redis-target.js';

const status = { request_id: 'r1', message_id: null, status: 'sent', reason: null } as MessageStatusUpdate;

async function failureOf(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

function expectRefused(error: GatewayError, name: string): void {
  expect(error.retryable).toBe(false);
  expect(error.message).toMatch(new RegExp(`Redis refused .*\\(${name}\\)`));
  expect(error.message).not.toMatch(/unreachable|unavailable/);
  expect((error.cause as Error).message).toMatch(new RegExp(`^${name}`));
}

describe.skipIf(skipRedis).each(TARGETS)(
  'Redis (%s) refusing a call: named, kept as cause, not retryable',
  (where) => {
    const target = useRedisTarget(where);

    describe.each(CLIENTS)('with %s', (kind) => {
      it('WRONGTYPE: a key of the store holding another type', async () => {
        const { redis, close } = await connectClient(kind, target.url);
        const send = (args: string[]) => sendRaw(redis, args);
        try {
          await send(['HSET', `w:${kind}:{k}`, 'f', 'v']);
          await send(['SET', `w:${kind}:rl:{acct}:slots`, 'not a sorted set']);
          const failures = await Promise.all([
            failureOf(redisDedupeStore(redis, { prefix: `w:${kind}:` }).claim('k', 1000)),
            failureOf(redisRateLimiter(redis, { key: 'acct', prefix: `w:${kind}:rl:` }).acquire()),
          ]);
          for (const error of failures) expectRefused(error, 'WRONGTYPE');
        } finally {
          await close();
        }
      });

      it('a script error: a stored status whose rank is not a number', async () => {
        const { redis, close } = await connectClient(kind, target.url);
        try {
          await sendRaw(redis, ['HSET', `s:${kind}:r:{r1}`, 'r', 'r1', 'k', 'not a rank']);
          const error = await failureOf(redisDeliveryStore(redis, { prefix: `s:${kind}:` }).record(status));
          expectRefused(error, 'ERR');
          expect((error.cause as Error).message).toMatch(/user_script/);
        } finally {
          await close();
        }
      });

      it('NOPERM: an ACL user (set on every node) without the commands the stores need', async () => {
        const user = `limited-${kind}`;
        await onEveryNode(target, [
          'ACL',
          'SETUSER',
          user,
          'on',
          '>pw',
          '~*',
          '&*',
          '+@all',
          '-evalsha',
          '-eval',
        ]);
        const url = target.nodes.map((node) => node.replace('redis://', `redis://${user}:pw@`)).join(',');
        const { redis, close } = await connectClient(kind, url);
        try {
          const failures = await Promise.all([
            failureOf(redisDedupeStore(redis, { prefix: `n:${kind}:` }).claim('k', 1000)),
            failureOf(redisRateLimiter(redis, { key: `n:${kind}` }).acquire()),
            failureOf(redisDeliveryStore(redis, { prefix: `n:${kind}:` }).record(status)),
          ]);
          for (const error of failures) expectRefused(error, 'NOPERM');
        } finally {
          await close();
        }
      });
    });
  },
);
