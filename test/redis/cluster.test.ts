// What only a cluster does, with ioredis `Cluster` and node-redis `createCluster`: a slot moving
// while the stores use it, keys whose braces would split them across slots, a master dying. The
// stores' own suites (dedupe-store, delivery-store, rate-limiter, fleet-handlers, refusals) run on
// a cluster as on a single server. One cluster for the whole file, and one more for the
// subscriber's node dying.
import { setTimeout as sleep } from 'node:timers/promises';
import { Cluster, Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/core/errors.js';
import { redisDedupeStore, redisDeliveryStore, redisRateLimiter } from '../../src/redis.js';
import type { MessageStatusUpdate } from '../../src/schemas/events-v2.js';
import { DeliveryTracker } from '../../src/tracking/delivery-tracker.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { messageAdd, post } from '../support/deliveries.js';
import { CLIENTS, connectCluster, skipRedis } from '../support/redis-clients.js';
import { moveSlot, startSlotMove, useRedisCluster } from '../support/redis-cluster.js';

const update = (request_id: string | null, status: string, extra: Partial<MessageStatusUpdate> = {}) =>
  ({ request_id, message_id: null, status, reason: null, ...extra }) as MessageStatusUpdate;

describe.skipIf(skipRedis)('the fleet on a three-master Redis Cluster', () => {
  const cluster = useRedisCluster();

  it.each(CLIENTS)(
    'a slot moved to another master while every store uses it (%s): every call succeeds',
    {
      timeout: 30_000,
    },
    async (kind) => {
      // One hash tag in every prefix and in the limiter's key: all the stores' keys in one slot.
      const tag = `moving-${kind}`;
      const { redis, close } = await connectCluster(kind, cluster.urls);
      const dedupe = redisDedupeStore(redis, { prefix: `{${tag}}:d:` });
      const delivery = redisDeliveryStore(redis, { prefix: `{${tag}}:s:` });
      const limiter = redisRateLimiter(redis, { key: tag, requests: 1_000_000, intervalMs: 1000 });
      const failures: unknown[] = [];
      let calls = 0;
      let moving = true;
      const worker = async (w: number) => {
        for (let n = 0; moving || n < 5; n++) {
          const id = `${w}-${n}`;
          const steps = [
            async () => (await limiter.acquire())(),
            async () => {
              const claim = (await dedupe.claim(id, 10_000)) as { token: string };
              await dedupe.keepReply(id, { id }, 10_000);
              await dedupe.complete(id, 10_000, { id }, claim.token);
              expect(await dedupe.claim(id, 10_000)).toEqual({ state: 'done', reply: { id } });
            },
            async () => {
              await delivery.record(update(`r${id}`, 'sent', { message_id: `m${id}` }));
              await delivery.record(update(null, 'delivered', { message_id: `m${id}` }));
              expect((await delivery.get(`m${id}`))?.best?.status).toBe('delivered');
            },
          ];
          for (const step of steps) {
            calls++;
            await step().catch((e: unknown) => failures.push(e));
          }
        }
      };
      try {
        const working = Promise.all([0, 1, 2, 3].map(worker));
        await sleep(100); // keys in the slot before it moves
        const move = await moveSlot(cluster, tag);
        await sleep(100); // and calls after, answered MOVED by the old owner
        moving = false;
        await working;
        expect(move.to).not.toBe(move.from);
        expect(move.keys).toBeGreaterThan(20); // the stores' keys were there, in use, as it moved
        expect(
          failures.map((e) => `${(e as Error).message} (${((e as Error).cause as Error)?.message})`),
        ).toEqual([]);
        expect(calls).toBeGreaterThanOrEqual(4 * 5 * 3);
      } finally {
        await delivery.close();
        await close();
      }
    },
  );

  it('ioredis: a waitFor made in the same tick as new Cluster() subscribes once the cluster is ready', async () => {
    const prefix = 'same-tick:';
    const recorder = await connectCluster('ioredis', cluster.urls);
    const records = redisDeliveryStore(recorder.redis, { prefix });
    const ports = cluster.ports.map((port) => ({ host: '127.0.0.1', port }));
    const fresh = new Cluster(ports, {
      redisOptions: { maxRetriesPerRequest: 1 },
      clusterRetryStrategy: () => 100,
    });
    fresh.on('error', () => {});
    const store = redisDeliveryStore(fresh, { prefix });
    try {
      const tracker = new DeliveryTracker({ store });
      const waits = ['r-tick-1', 'r-tick-2'].map((id) => tracker.waitFor(id, { timeoutMs: 20_000 }));
      await records.record(update('r-tick-1', 'delivered'));
      await records.record(update('r-tick-2', 'read'));
      await expect(Promise.all(waits)).resolves.toMatchObject([{ status: 'delivered' }, { status: 'read' }]);
    } finally {
      await Promise.all([store.close(), records.close()]);
      fresh.disconnect();
      await recorder.close();
    }
  });

  it.each(CLIENTS)(
    'a slot stuck half moved (%s): TRYAGAIN tried again only until timeoutMs, then retryable',
    async (kind) => {
      const tag = `stuck-${kind}`;
      const { redis, close } = await connectCluster(kind, cluster.urls);
      const dedupe = redisDedupeStore(redis, { prefix: `{${tag}}:`, timeoutMs: 300 });
      const claim = (await dedupe.claim('k', 60_000)) as { token: string };
      const moving = await startSlotMove(cluster, tag); // the claim here, its kept reply's key nowhere
      try {
        const t0 = performance.now();
        const error = await dedupe.complete('k', 1000, { id: 1 }, claim.token).catch((e: unknown) => e);
        const ms = performance.now() - t0;
        expect(error).toBeInstanceOf(GatewayError);
        // node-redis: the SDK's tries; ioredis: its own (up to 16 × 100 ms), cut by the timeout
        expect(error).toMatchObject({
          retryable: true,
          message: expect.stringMatching(/\(TRYAGAIN\)|within 300 ms/),
        });
        expect(ms).toBeGreaterThanOrEqual(250);
        expect(ms).toBeLessThan(300 + 1200); // not the 2 s default, not forever: slack for a loaded machine
      } finally {
        await moving.cancel();
      }
      await dedupe.complete('k', 1000, { id: 1 }, claim.token);
      expect(await dedupe.claim('k', 1000)).toEqual({ state: 'done', reply: { id: 1 } });
      await close();
    },
  );

  it('ioredis giving up its redirections on a slot stuck half moved: unavailable for now, named, retryable', async () => {
    const { redis, close } = await connectCluster('ioredis', cluster.urls);
    const dedupe = redisDedupeStore(redis, { prefix: '{given-up}:', timeoutMs: 5000 });
    const claim = (await dedupe.claim('k', 60_000)) as { token: string };
    const moving = await startSlotMove(cluster, 'given-up');
    try {
      // ioredis tries 16 times, 100 ms apart, then throws an Error of its own: not "unreachable"
      const error = await dedupe.complete('k', 1000, { id: 1 }, claim.token).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayError);
      expect(error).toMatchObject({
        retryable: true,
        // the last reply it met, named (TRYAGAIN mostly)
        message: expect.stringMatching(
          /^Redis is unavailable for now: dedupe complete failed \([A-Z]+, after/,
        ),
      });
      expect(((error as GatewayError).cause as Error).message).toMatch(/^Too many Cluster redirections/);
    } finally {
      await moving.cancel();
      await close();
    }
  });

  describe.each(CLIENTS)(
    'keys holding braces (%s): one slot per delivery or account, whatever the key',
    (kind) => {
      // Redis hashes only the text between a key's first `{` and the next `}`, the whole key when
      // that text is empty: a key starting with `}`, or an empty one, must still leave the keys of
      // one delivery (claim, kept reply) or one account (slots, hold) in one slot, or every call
      // fails with CROSSSLOT.
      const keys = ['}abc', '{x}', 'a}b{c', '{}', '%7B'];

      it.each([...keys, ''])('dedupe: claim, keep a reply, complete and claim again %j', async (key) => {
        const { redis, close } = await connectCluster(kind, cluster.urls);
        try {
          const dedupe = redisDedupeStore(redis, { prefix: `braces:${kind}:` });
          const claim = (await dedupe.claim(key, 10_000)) as { state: string; token: string };
          expect(claim.state).toBe('claimed');
          await dedupe.keepReply(key, { id: 1 }, 10_000);
          await dedupe.release(key, claim.token);
          expect(await dedupe.claim(key, 10_000)).toMatchObject({ state: 'claimed', reply: { id: 1 } });
          await dedupe.complete(key, 10_000, { id: 2 });
          expect(await dedupe.claim(key, 10_000)).toEqual({ state: 'done', reply: { id: 2 } });
        } finally {
          await close();
        }
      });

      it.each(keys)(
        'a delivery whose idempotency key is %j is answered 200, and its repeat processed once',
        async (key) => {
          const { redis, close } = await connectCluster(kind, cluster.urls);
          try {
            const hooks = new WebhookHandler({
              secret: 's',
              dispatch: 'await',
              dedupe: redisDedupeStore(redis, { prefix: `hooks:${kind}:` }),
            });
            let processed = 0;
            hooks.on('message.add', () => {
              processed++;
            });
            for (let i = 0; i < 2; i++) {
              const answer = await hooks.handle(post(messageAdd(key), '/hooks?secret=s'));
              expect(answer.status).toBe(200);
            }
            expect(processed).toBe(1);
          } finally {
            await close();
          }
        },
      );

      it('dedupe: keys that differ only by braces and their escapes stay apart', async () => {
        const { redis, close } = await connectCluster(kind, cluster.urls);
        try {
          const dedupe = redisDedupeStore(redis, { prefix: `apart:${kind}:` });
          await dedupe.complete('{x}', 10_000, 'braces');
          expect(await dedupe.claim('%7Bx%7D', 10_000)).toMatchObject({ state: 'claimed' });
          expect(await dedupe.claim('{x}', 10_000)).toEqual({ state: 'done', reply: 'braces' });
        } finally {
          await close();
        }
      });

      it.each(keys)('rate limiter: acquire, release and pause with the key %j', async (key) => {
        const { redis, close } = await connectCluster(kind, cluster.urls);
        try {
          const limiter = redisRateLimiter(redis, { key, prefix: `braces:${kind}:rl:`, requests: 2 });
          (await limiter.acquire())();
          await limiter.pause(1);
          (await limiter.acquire())();
        } finally {
          await close();
        }
      });

      it.each([...keys, ''])('delivery store: record and read by request and message id %j', async (id) => {
        const { redis, close } = await connectCluster(kind, cluster.urls);
        try {
          const store = redisDeliveryStore(redis, { prefix: `braces:${kind}:s:` });
          await store.record(update(`r${id}`, 'sent', { message_id: `m${id}` }));
          await store.record(update(null, 'delivered', { message_id: `m${id}` }));
          expect((await store.get(`m${id}`))?.best?.status).toBe('delivered');
          expect(await store.get(`r${id}`)).toMatchObject({ requestId: `r${id}`, messageId: `m${id}` });
        } finally {
          await close();
        }
      });
    },
  );

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

// ioredis only: node-redis keeps a cluster's pub/sub client on its node while that node is still
// listed in the cluster's shards, reconnecting to it, so a wait there sees nothing until the
// topology changes (its own behaviour, not the SDK's subscription).
describe.skipIf(skipRedis)('the status subscription when its node dies for good', () => {
  describe.each(['ioredis'] as const)('with %s', (kind) => {
    // A cluster of its own: one master is killed. The others keep serving their slots.
    const cluster = useRedisCluster();

    it('a pending wait resolves with a status recorded after the subscriber node died', {
      timeout: 30_000,
    }, async () => {
      const nodes = cluster.ports.map((port) =>
        new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 }).on('error', () => {}),
      );
      const waiter = await connectCluster(kind, cluster.urls);
      const recorder = await connectCluster(kind, cluster.urls);
      const prefix = `failover:${kind}:`;
      const store = redisDeliveryStore(waiter.redis, { prefix });
      const tracker = new DeliveryTracker({ store });
      const records = redisDeliveryStore(recorder.redis, { prefix });
      try {
        await Promise.all(
          nodes.map((node) => node.call('CONFIG', 'SET', 'cluster-require-full-coverage', 'no')),
        );
        const warm = tracker.waitFor('warm', { timeoutMs: 5000 });
        await sleep(50);
        await records.record(update('warm', 'delivered'));
        await warm;
        // The one pub/sub connection of the cluster is the waiter's: its node dies.
        const pubsub = await Promise.all(nodes.map((node) => node.call('CLIENT', 'LIST', 'TYPE', 'pubsub')));
        const dead = pubsub.findIndex((list) => String(list).trim() !== '');
        expect(dead).toBeGreaterThanOrEqual(0);
        // A request id whose hash lives on a master that stays.
        const survivor = nodes[(dead + 1) % nodes.length] as Redis;
        const ranges = (await survivor.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
        const ownerOf = (slot: number) =>
          ranges.find(([start, end]) => start <= slot && slot <= end)?.[2][1] as number;
        let id = '';
        for (let i = 0; id === ''; i++) {
          const slot = Number(await survivor.call('CLUSTER', 'KEYSLOT', `${prefix}r:{f${i}}`));
          if (ownerOf(slot) !== cluster.ports[dead]) id = `f${i}`;
        }
        const waiting = tracker.waitFor(id, { timeoutMs: 20_000 });
        await sleep(50);
        await cluster.kill(dead);
        await records.record(update(id, 'delivered'));
        await expect(waiting).resolves.toMatchObject({ request_id: id, status: 'delivered' });
      } finally {
        for (const node of nodes) node.disconnect();
        await Promise.all([store.close(), records.close()]);
        await Promise.all([waiter.close(), recorder.close()]);
      }
    });
  });
});
