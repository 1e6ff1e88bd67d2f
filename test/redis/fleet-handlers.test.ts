// Two WebhookHandlers sharing one redisDedupeStore, as two instances behind a load balancer.
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { redisDedupeStore } from '../../src/redis.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { messageAdd, post } from '../support/deliveries.js';
import { CLIENTS, connectClient, skipRedis } from '../support/redis-clients.js';
import { useRedisServer } from '../support/redis-server.js';
import { TARGETS, useRedisTarget } from '../support/redis-target.js';

describe.skipIf(skipRedis).each(TARGETS)('two handlers sharing redisDedupeStore (%s)', (where) => {
  const target = useRedisTarget(where);

  it.each(CLIENTS)(
    'the same 200 deliveries to both at once: each key dispatched exactly once (%s)',
    async (kind) => {
      const clients = await Promise.all([connectClient(kind, target.url), connectClient(kind, target.url)]);
      try {
        const dispatched = new Map<string, number>();
        const handlers = clients.map(({ redis }) => {
          const hooks = new WebhookHandler({
            secret: 's',
            dispatch: 'await',
            dedupe: redisDedupeStore(redis, { prefix: `h:${kind}:` }),
          });
          hooks.on('message.add', async (event) => {
            const key = event.meta.idempotency_key as string;
            dispatched.set(key, (dispatched.get(key) ?? 0) + 1);
            await new Promise((resolve) => setTimeout(resolve, 5)); // still processing when the twin arrives
          });
          return hooks;
        });
        const bodies = Array.from({ length: 200 }, (_, i) => messageAdd(`key-${kind}-${i}`));
        const answers = await Promise.all(
          bodies.flatMap((body) => handlers.map((hooks) => hooks.handle(post(body, '/hooks?secret=s')))),
        );
        expect(dispatched.size).toBe(200);
        expect([...dispatched.values()].every((count) => count === 1)).toBe(true);
        // the twin of each is answered 200 (done) or 409 (still processing): never dispatched again
        for (const answer of answers) expect([200, 409]).toContain(answer.status);
      } finally {
        await Promise.all(clients.map((c) => c.close()));
      }
    },
  );
});

describe.skipIf(skipRedis)('a handler on redisDedupeStore, Redis down', () => {
  const server = useRedisServer();

  it('Redis unreachable: the delivery gets a 5xx, never a 200 that loses it', async () => {
    const redis = new Redis(server.port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
    redis.on('error', () => {});
    const hooks = new WebhookHandler({
      secret: 's',
      dispatch: 'await',
      dedupe: redisDedupeStore(redis, { timeoutMs: 300 }),
    });
    await server.stop();
    try {
      const answer = await hooks.handle(post(messageAdd('down-1'), '/hooks?secret=s'));
      expect(answer.status).toBeGreaterThanOrEqual(500);
    } finally {
      await server.start();
      redis.disconnect();
    }
  });
});
