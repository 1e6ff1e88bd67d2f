// Every store and the limiter on a real three-master Redis Cluster, with ioredis `Cluster` and
// node-redis `createCluster`, as on a single server (issue 20). One cluster for the whole file.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/core/errors.js';
import { redisDedupeStore, redisDeliveryStore, redisRateLimiter } from '../../src/redis.js';
import type { MessageStatusUpdate } from '../../src/schemas/events-v2.js';
import { createFakeGateway } from '../../src/testing.js';
import { DeliveryTracker } from '../../src/tracking/delivery-tracker.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { messageAdd, post } from '../support/deliveries.js';
import { CLIENTS, connectCluster, sendRaw, skipRedis } from '../support/redis-clients.js';
import { useRedisCluster } from '../support/redis-cluster.js';
import { runSenders } from './fleet-processes.js';

const update = (request_id: string | null, status: string, extra: Partial<MessageStatusUpdate> = {}) =>
  ({ request_id, message_id: null, status, reason: null, ...extra }) as MessageStatusUpdate;

describe.skipIf(skipRedis)('the fleet on a three-master Redis Cluster', () => {
  const cluster = useRedisCluster();

  describe.each(CLIENTS)('with %s', (kind) => {
    let clients: Awaited<ReturnType<typeof connectCluster>>[] = [];
    beforeAll(async () => {
      clients = await Promise.all([0, 1, 2].map(() => connectCluster(kind, cluster.urls)));
    });
    afterAll(() => Promise.all(clients.map((c) => c.close())));
    const redis = (n: number) => clients[n]!.redis;

    it('the tracker across instances: statuses of 40 requests, by request id and by message id', async () => {
      const stores = [0, 1].map((n) => redisDeliveryStore(redis(n), { prefix: `c:${kind}:` }));
      const [a, b] = stores.map((store) => new DeliveryTracker({ store })) as [
        DeliveryTracker,
        DeliveryTracker,
      ];
      try {
        const ids = Array.from({ length: 40 }, (_, i) => `req-${kind}-${i}`);
        const early = ids.slice(0, 20);
        for (const id of early) await b.observe(update(id, 'delivered', { message_id: `m-${id}` }));
        const waits = ids.map((id) => a.waitFor(id, { timeoutMs: 5000 }));
        const byMessage = a.waitFor(`m-${ids[0]}`, { until: 'read', timeoutMs: 5000 });
        await sleep(50);
        for (const id of ids.slice(20)) await b.observe(update(id, 'delivered', { message_id: `m-${id}` }));
        await b.observe(update(null, 'read', { message_id: `m-${ids[0]}` }));
        const settled = await Promise.all(waits);
        expect(settled.map((u) => u.request_id)).toEqual(ids);
        await expect(byMessage).resolves.toMatchObject({ status: 'read' });
        expect((await stores[0]!.get(`m-${ids[0]}`))?.requestId).toBe(ids[0]);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    });

    it('garbage on the status channel is ignored and reported; waits still resolve', async () => {
      const reports: string[] = [];
      const store = redisDeliveryStore(redis(0), {
        prefix: `g:${kind}:`,
        onError: (e) => reports.push(e.message),
      });
      const tracker = new DeliveryTracker({ store });
      try {
        const waiting = tracker.waitFor('g1', { timeoutMs: 5000 });
        await sleep(50);
        await sendRaw(redis(1), ['PUBLISH', `g:${kind}:status`, 'not json']);
        await expect.poll(() => reports.length).toBe(1);
        await redisDeliveryStore(redis(1), { prefix: `g:${kind}:` }).record(update('g1', 'delivered'));
        await expect(waiting).resolves.toMatchObject({ status: 'delivered' });
      } finally {
        await store.close();
      }
    });

    it('two handlers on one dedupe store: 200 deliveries to both at once, each dispatched once', async () => {
      const dispatched = new Map<string, number>();
      const handlers = [0, 1].map((n) => {
        const hooks = new WebhookHandler({
          secret: 's',
          dispatch: 'await',
          dedupe: redisDedupeStore(redis(n), { prefix: `h:${kind}:` }),
        });
        hooks.on('message.add', async (event) => {
          const key = event.meta.idempotency_key as string;
          dispatched.set(key, (dispatched.get(key) ?? 0) + 1);
          await sleep(5);
        });
        return hooks;
      });
      const bodies = Array.from({ length: 200 }, (_, i) => messageAdd(`ck-${kind}-${i}`));
      const answers = await Promise.all(
        bodies.flatMap((body) => handlers.map((hooks) => hooks.handle(post(body, '/hooks?secret=s')))),
      );
      expect(dispatched.size).toBe(200);
      expect([...dispatched.values()].every((count) => count === 1)).toBe(true);
      for (const answer of answers) expect([200, 409]).toContain(answer.status);
    });

    it('a claim whose process was SIGKILLed is processed again after its lease', async () => {
      const child = fork(
        new URL('./fixtures/claim-and-hang.ts', import.meta.url),
        [cluster.urls.join(','), kind, 'dead-c'],
        { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
      );
      const [message] = await once(child, 'message');
      expect(message).toMatchObject({ state: 'claimed' });
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
      const store = redisDedupeStore(redis(1), { prefix: `t:${kind}:` });
      expect(await store.claim('dead-c', 10_000)).toEqual({ state: 'processing' });
      await sleep(500); // the child's lease is 400 ms
      expect(await store.claim('dead-c', 10_000)).toMatchObject({ state: 'claimed' });
    });

    it('three limiters sharing a key keep to the limit; keys of other accounts spread over the nodes', async () => {
      const starts: number[] = [];
      const shared = [0, 1, 2].map((n) =>
        redisRateLimiter(redis(n), { key: `acct-${kind}`, requests: 10, intervalMs: 300 }),
      );
      await Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          const release = await shared[i % 3]!.acquire();
          starts.push(Date.now());
          release();
        }),
      );
      starts.sort((x, y) => x - y);
      for (let i = 10; i < starts.length; i++)
        expect(starts[i]! - starts[i - 10]!).toBeGreaterThanOrEqual(290);
      // accounts whose keys live on different masters each work
      for (let n = 0; n < 12; n++)
        (await redisRateLimiter(redis(0), { key: `other-${kind}-${n}` }).acquire())();
    });

    it('WRONGTYPE on a cluster node is a refusal, named, not retryable', async () => {
      await sendRaw(redis(0), ['HSET', `w:${kind}:{k}`, 'f', 'v']);
      const error = await redisDedupeStore(redis(0), { prefix: `w:${kind}:` })
        .claim('k', 1000)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayError);
      expect(error).toMatchObject({ retryable: false, message: expect.stringMatching(/\(WRONGTYPE\)/) });
    });
  });

  it('3 processes (ioredis and node-redis) through one limiter on the cluster: 0 answered 429', {
    timeout: 30_000,
  }, async () => {
    const standIn = await createFakeGateway({ rateLimit: { requests: 20, intervalMs: 1000 } });
    try {
      const { reports } = await runSenders({
        mode: 'redis',
        processes: 3,
        calls: 12,
        limit: '20/1000',
        kinds: [...CLIENTS],
        redisUrl: cluster.urls.join(','),
        baseUrl: standIn.url,
        token: standIn.token,
      });
      expect(reports.reduce((sum, r) => sum + r.ok, 0)).toBe(36);
      expect(standIn.requests.filter((r) => r.status === 429)).toHaveLength(0);
    } finally {
      await standIn.close();
    }
  });

  // Last: it takes a third of the slots away for good (no replicas).
  it('a master killed mid-run: bounded, retryable, classified failures; no delivery processed twice', {
    timeout: 30_000,
  }, async () => {
    const timeoutMs = 500;
    const conns = await Promise.all(CLIENTS.map((kind) => connectCluster(kind, cluster.urls)));
    const dispatched = new Map<string, number>();
    const stores = conns.map((c) => redisDedupeStore(c.redis, { prefix: 'kill:', timeoutMs }));
    const handlers = stores.map((dedupe) => {
      const hooks = new WebhookHandler({ secret: 's', dispatch: 'await', dedupe });
      hooks.on('error', () => {});
      hooks.on('message.add', (event) => {
        const key = event.meta.idempotency_key as string;
        dispatched.set(key, (dispatched.get(key) ?? 0) + 1);
      });
      return hooks;
    });
    const keys = Array.from({ length: 60 }, (_, i) => `kill-${i}`);
    const deliverAll = () =>
      Promise.all(
        keys.flatMap((key) =>
          handlers.map(async (hooks) => {
            const t0 = performance.now();
            const answer = await hooks.handle(post(messageAdd(key), '/hooks?secret=s'));
            return { status: answer.status, ms: performance.now() - t0 };
          }),
        ),
      );
    try {
      for (const { status } of await deliverAll()) expect([200, 409]).toContain(status);
      keys.push(...Array.from({ length: 60 }, (_, i) => `kill-late-${i}`));
      await cluster.kill(2);
      const errors: unknown[] = [];
      for (let round = 0; round < 8; round++) {
        for (const { status, ms } of await deliverAll()) {
          expect(status === 200 || status === 409 || status >= 500).toBe(true); // never a 200 that loses it
          expect(ms).toBeLessThan(timeoutMs + 1500);
        }
        for (const store of stores)
          errors.push(await store.claim(`probe-${round}-${Math.random()}`, 1000).catch((e: unknown) => e));
        if (errors.some((e) => /CLUSTERDOWN/.test((e as Error).message))) break;
        await sleep(400);
      }
      const failures = errors.filter((e) => e instanceof Error);
      expect(failures.length).toBeGreaterThan(0);
      for (const failure of failures) {
        expect(failure).toBeInstanceOf(GatewayError);
        expect(failure).toMatchObject({
          retryable: true,
          message: expect.stringMatching(/Redis is (unreachable|unavailable)/),
        });
      }
      expect([...dispatched.values()].every((count) => count === 1)).toBe(true);
    } finally {
      await Promise.all(conns.map((c) => c.close()));
    }
  });
});
