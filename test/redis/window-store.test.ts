// ConversationWindows on redisWindowStore (DESIGN: Conversation windows): a fleet shares what any
// instance heard, a restart loses nothing, the tier holds across instances; on a single server and
// a three-master cluster, through ioredis and node-redis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisWindowStore } from '../../src/redis.js';
import type { FakeGateway } from '../../src/testing.js';
import { ConversationWindows } from '../../src/tracking/conversation-windows.js';
import { CLIENTS, connectClient, skipRedis } from '../support/redis-clients.js';
import { TARGETS, useRedisTarget } from '../support/redis-target.js';
import {
  expectFleetShares,
  expectImpliedTransportKept,
  fakeWithWindows,
  type Instance,
  startInstance,
  WAPI,
} from '../support/windows-fleet.js';

const HOUR = 3_600_000;

describe.skipIf(skipRedis)('ConversationWindows on redisWindowStore', () => {
  describe.each(TARGETS)('on %s', (where) => {
    const target = useRedisTarget(where);

    describe.each(CLIENTS)('with %s', (kind) => {
      const connections: Awaited<ReturnType<typeof connectClient>>[] = [];
      const instances: Instance[] = [];
      let gateway: FakeGateway;
      const prefix = `win:${kind}:`;
      const store = () =>
        redisWindowStore((connections[0] as (typeof connections)[number]).redis, { prefix });
      beforeAll(async () => {
        connections.push(await connectClient(kind, target.url), await connectClient(kind, target.url));
        gateway = await fakeWithWindows();
        for (const { redis } of connections) {
          instances.push(await startInstance(gateway, redisWindowStore(redis, { prefix })));
        }
      });
      afterAll(async () => {
        await gateway?.close();
        await Promise.all(instances.map((i) => i.close()));
        await Promise.all(connections.map((c) => c.close()));
      });

      it('a fleet of two shares it: B, which hears nothing, refuses, sends a template, then text once A heard the customer', async () => {
        await expectFleetShares(gateway, instances[0] as Instance, instances[1] as Instance, '79005550001');
      });

      it('a restart loses nothing: a new store on a new connection knows the window and when listening began', async () => {
        const restarted = new ConversationWindows({ store: store() });
        expect(await restarted.get(WAPI, '79005550001')).toMatchObject({ transport: 'wapi', open: true });
        const facts = await store().read(WAPI, '79005550099');
        expect(facts).toMatchObject({ transport: 'wapi', tier: 'TIER_0', lastInboundAt: undefined });
        expect(facts.heardSince).toBeLessThanOrEqual(Date.now());
        expect(facts.heardSince).toBeGreaterThan(Date.now() - HOUR);
      });

      it('a transport a tier implies never replaces a stated one, and is kept where none is stated', async () => {
        await expectImpliedTransportKept(store());
      });

      it('a chat’s last message only moves forward, and one older than the longest window is forgotten', async () => {
        const s = store();
        const now = Date.now();
        await s.recordInbound('ch-order', 'chat', now - HOUR);
        await s.recordInbound('ch-order', 'chat', now - 2 * HOUR);
        expect((await s.read('ch-order', 'chat')).lastInboundAt).toBe(now - HOUR);
        await s.recordInbound('ch-order', 'ancient', now - 9 * 24 * HOUR);
        expect((await s.read('ch-order', 'ancient')).lastInboundAt).toBeUndefined();
      });

      it('the tier holds across instances starting conversations at once: exactly the cap, each chat once', async () => {
        const [a, b] = [
          store(),
          redisWindowStore((connections[1] as (typeof connections)[number]).redis, { prefix }),
        ];
        const now = Date.now();
        const starts = Array.from({ length: 60 }, (_, i) =>
          (i % 2 ? a : b).startConversation('ch-tier', `chat-${i % 45}`, now, 40),
        );
        const outcomes = (await Promise.all(starts)).map((s) => s.outcome);
        expect(outcomes.filter((o) => o === 'started')).toHaveLength(40);
        expect(await a.conversations('ch-tier', now - 24 * HOUR)).toEqual({ count: 40, tier: undefined });
        const started = await a.startConversation('ch-tier', 'chat-given-back', now + 1, null);
        expect(started).toEqual({ outcome: 'started', at: now + 1 });
        await b.cancelConversation('ch-tier', 'chat-given-back', now + 1);
        expect((await a.conversations('ch-tier', now - 24 * HOUR)).count).toBe(40);
      });
    });
  });
});
