import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessageFailedError } from '../../src/core/errors.js';
import { redisDeliveryStore } from '../../src/redis.js';
import type { MessageStatusUpdate } from '../../src/schemas/events-v2.js';
import { DeliveryTracker } from '../../src/tracking/delivery-tracker.js';
import { CLIENTS, connectClient, sendRaw, skipRedis } from '../support/redis-clients.js';
import { onEveryNode, TARGETS, useRedisTarget } from '../support/redis-target.js';

const update = (request_id: string | null, status: string, extra: Partial<MessageStatusUpdate> = {}) =>
  ({ request_id, message_id: null, status, reason: null, ...extra }) as MessageStatusUpdate;

describe.skipIf(skipRedis)('DeliveryTracker on redisDeliveryStore: two instances, one Redis', () => {
  describe.each(TARGETS)('on %s', (where) => {
    const target = useRedisTarget(where);

    describe.each(CLIENTS)('with %s', (kind) => {
      let clients: Awaited<ReturnType<typeof connectClient>>[] = [];
      const stores: ReturnType<typeof redisDeliveryStore>[] = [];
      let a: DeliveryTracker;
      let b: DeliveryTracker;
      beforeAll(async () => {
        clients = await Promise.all([connectClient(kind, target.url), connectClient(kind, target.url)]);
        for (const c of clients) stores.push(redisDeliveryStore(c.redis, { prefix: `dt:${kind}:` }));
        a = new DeliveryTracker({ store: stores[0] });
        b = new DeliveryTracker({ store: stores[1] });
      });
      afterAll(async () => {
        await Promise.all(stores.map((s) => s.close()));
        await Promise.all(clients.map((c) => c.close()));
      });

      it('waitFor on A resolves for a status that reached B before the wait began', async () => {
        await b.observe(update('r1', 'delivered'));
        await expect(a.waitFor('r1', { timeoutMs: 2000 })).resolves.toMatchObject({ status: 'delivered' });
      });

      it('waitFor on A resolves when the status reaches B during the wait, not before `until`', async () => {
        let settled = false;
        const waiting = a.waitFor('r2', { timeoutMs: 3000 }).finally(() => {
          settled = true;
        });
        await sleep(50);
        await b.observe(update('r2', 'sent'));
        await sleep(50);
        expect(settled).toBe(false);
        await b.observe(update('r2', 'delivered'));
        await expect(waiting).resolves.toMatchObject({ request_id: 'r2', status: 'delivered' });
        expect(a.statusOf('r2')).toBe('delivered');
      });

      it('statuses only move forward; a message id joins later updates to their request', async () => {
        await b.observe(update('r3', 'sent', { message_id: 'm3' }));
        await b.observe(update(null, 'read', { message_id: 'm3' }));
        await b.observe(update('r3', 'delivered'));
        expect((await stores[0]!.get('r3'))?.best?.status).toBe('read');
        await expect(a.waitFor('m3', { until: 'read', timeoutMs: 2000 })).resolves.toMatchObject({
          status: 'read',
        });
      });

      it('failed on B rejects the wait on A with MessageFailedError', async () => {
        // Caught at once: A may hear the failure before B's observe() returns.
        const waiting = a.waitFor('r4', { timeoutMs: 3000 }).catch((e: unknown) => e);
        await sleep(30);
        await b.observe(update('r4', 'failed', { reason: 'bad_contact', message_id: 'm4' }));
        const error = await waiting;
        expect(error).toBeInstanceOf(MessageFailedError);
        expect(error).toMatchObject({ reason: 'bad_contact', requestId: 'r4', messageId: 'm4' });
      });

      it('keeps statuses retainMs after the first one', async () => {
        const short = redisDeliveryStore(clients[0]!.redis, { prefix: `dt:${kind}:short:`, retainMs: 150 });
        await short.record(update('r5', 'sent', { message_id: 'm5' }));
        expect(await short.get('m5')).toMatchObject({ requestId: 'r5', messageId: 'm5' });
        await sleep(250);
        expect(await short.get('r5')).toBeUndefined();
        expect(await short.get('m5')).toBeUndefined();
      });

      it('a message the SDK did not write on the status channel is ignored and reported, never thrown', async () => {
        const reports: string[] = [];
        const store = redisDeliveryStore(clients[0]!.redis, {
          prefix: `dt:${kind}:`,
          onError: (error) => reports.push(error.message),
        });
        const tracker = new DeliveryTracker({ store });
        try {
          const waiting = tracker.waitFor('r7', { timeoutMs: 3000 });
          await sleep(50);
          const raw = clients[1]!.redis;
          const garbage = ['not json', '{"r":1}', 'null', '{"r":"r7","b":"{"}', '{"r":"r7","b":"5"}'];
          for (const message of garbage) {
            const args = ['PUBLISH', `dt:${kind}:status`, message];
            await sendRaw(raw, args);
          }
          await expect.poll(() => reports.length).toBe(garbage.length);
          // On a cluster the five come through different nodes: their order is not kept.
          expect(reports).toContainEqual(
            expect.stringMatching(/ignored a message of 8 characters on dt:.*:status that it did not write/),
          );
          await b.observe(update('r7', 'delivered'));
          await expect(waiting).resolves.toMatchObject({ request_id: 'r7', status: 'delivered' });
        } finally {
          await store.close();
        }
      });

      it('a pending wait reads the store again after the subscription reconnects', async () => {
        const waiting = a.waitFor('r6', { timeoutMs: 5000 });
        await sleep(50);
        // A status stored while no message reaches A (written without publishing), then A's
        // subscriber connection is cut: after it reconnects, A must read what it missed.
        const raw = clients[1]!.redis;
        const hset = [
          'HSET',
          `dt:${kind}:r:{r6}`,
          'r',
          'r6',
          'k',
          '2',
          'b',
          JSON.stringify(update('r6', 'delivered')),
        ];
        await sendRaw(raw, hset);
        // On a cluster the subscriber's node is any one of them: cut it on every node.
        await onEveryNode(target, ['CLIENT', 'KILL', 'TYPE', 'pubsub']);
        await expect(waiting).resolves.toMatchObject({ request_id: 'r6', status: 'delivered' });
      });
    });
  });
});
