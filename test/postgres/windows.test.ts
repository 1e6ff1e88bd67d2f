// store.windows (DESIGN: Conversation windows): a fleet shares what any instance heard through the
// CRM's PostgreSQL, a restart loses nothing, and the outbox relay marks a send the windows refuse
// `failed` with its reason. On PGlite and a real PostgreSQL through pg and postgres.js, and
// through each ORM (Prisma, Drizzle, Kysely, Knex): what the store does, without the tests that
// write SQL of their own.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postgresStore } from '../../src/postgres/store.js';
import type { FakeGateway } from '../../src/testing.js';
import { ConversationWindows } from '../../src/tracking/conversation-windows.js';
import { openStore, PGLITE_START_MS, postgresTargets, sqlOn, until } from '../support/postgres-targets.js';
import {
  expectFleetShares,
  expectImpliedTransportKept,
  fakeWithWindows,
  type Instance,
  sendsTo,
  startInstance,
  templateTo,
  textTo,
  WAPI,
} from '../support/windows-fleet.js';

const HOUR = 3_600_000;

let gateway: FakeGateway;
beforeAll(async () => {
  gateway = await fakeWithWindows();
});
afterAll(() => gateway?.close());

const DRIVERS = ['pglite', 'pg', 'postgres.js'];

for (const target of postgresTargets({ orms: true })) {
  const driver = DRIVERS.includes(target.name);
  describe(`store.windows on ${target.name}`, () => {
    let opened: Awaited<ReturnType<typeof openStore>>;
    let second: { db: object; close(): Promise<void> };
    const instances: Instance[] = [];
    /** The store of the second instance: its own handle on the same database and schema. */
    const other = () => postgresStore(second.db, { schema: opened.schema });
    beforeEach(async () => {
      gateway.reset(); // subscriptions of earlier tests' receivers go
      opened = await openStore(target);
      second = await target.open();
      instances.push(await startInstance(gateway, opened.store.windows));
      instances.push(await startInstance(gateway, other().windows));
    }, 2 * PGLITE_START_MS); // a safety net: the first opens the file's PGlite, then two instances start
    afterEach(async () => {
      await Promise.all(instances.splice(0).map((i) => i.close()));
      await second.close();
      await opened.close();
    });
    const [a, b] = [() => instances[0] as Instance, () => instances[1] as Instance];

    it('a fleet of two shares it: B, which hears nothing, refuses, sends a template, then text once A heard the customer', async () => {
      await expectFleetShares(gateway, a(), b(), '79006660001');
    });

    it('a transport a tier implies never replaces a stated one, and is kept where none is stated', async () => {
      await expectImpliedTransportKept(opened.store.windows);
    });

    it('a restart loses nothing: a new store on a new handle knows the window and when listening began', async () => {
      await a().client.channels.list();
      await a().windows.observeInbound(WAPI, '79006660002', Date.now() - HOUR);
      const restarted = new ConversationWindows({ store: other().windows });
      expect(await restarted.get(WAPI, '79006660002')).toMatchObject({
        transport: 'wapi',
        open: true,
        lastInboundAt: expect.any(Number),
      });
      const facts = await other().windows.read(WAPI, '79006660099');
      expect(facts).toMatchObject({ transport: 'wapi', tier: 'TIER_0', lastInboundAt: undefined });
      expect(facts.heardSince).toBeGreaterThan(Date.now() - HOUR);
      expect(facts.heardSince).toBeLessThanOrEqual(Date.now());
    });

    it('a chat’s start is counted once across instances; the cap holds when they start one after the other', async () => {
      const [x, y] = [opened.store.windows, other().windows];
      const now = Date.now();
      const same = await Promise.all([
        x.startConversation('ch-tier', 'chat-same', now, 10),
        y.startConversation('ch-tier', 'chat-same', now, 10),
      ]);
      expect(same.map((s) => s.outcome).sort()).toEqual(['open', 'started']);
      const outcomes: string[] = [];
      for (let i = 0; i < 12; i++) {
        outcomes.push((await (i % 2 ? x : y).startConversation('ch-tier', `chat-${i}`, now, 10)).outcome);
      }
      expect(outcomes.filter((o) => o === 'started')).toHaveLength(9);
      expect(outcomes.slice(9)).toEqual(['full', 'full', 'full']);
      expect(await y.conversations('ch-tier', now - 24 * HOUR)).toEqual({ count: 10, tier: undefined });
      await x.cancelConversation('ch-tier', 'chat-0', now);
      expect((await y.conversations('ch-tier', now - 24 * HOUR)).count).toBe(9);
    });

    it.runIf(driver)(
      'the outbox relay marks a send the windows refuse failed, with window or tier as its reason',
      async () => {
        await a().client.channels.list();
        const s = `"${opened.schema}"`;
        // The wapi channel has started its tier's 250 conversations today.
        await sqlOn(
          opened.db,
          `INSERT INTO ${s}.window_chats (channel_id, chat_id, conversation_at)
         SELECT $1, 'started-' || i, now() - interval '1 hour' FROM generate_series(1, 250) i`,
          [WAPI],
        );
        const outbox = opened.store.outbox;
        const { driverOf } = await import('../../src/postgres/driver.js');
        const ids = await driverOf(opened.db).transaction(async (_session, tx) => [
          await outbox.send(tx, textTo('79006660003')),
          await outbox.send(tx, templateTo('79006660004')),
        ]);
        const before = sendsTo(gateway);
        const relay = outbox.relay(b().client, { pollIntervalMs: 10 });
        await until(async () => (await outbox.get(ids[1] as string))?.status === 'failed');
        await relay.stop();
        expect(await outbox.get(ids[0] as string)).toMatchObject({ status: 'failed', reason: 'window' });
        expect(await outbox.get(ids[1] as string)).toMatchObject({ status: 'failed', reason: 'tier' });
        expect(sendsTo(gateway)).toBe(before);
      },
    );

    it.runIf(driver)(
      'store.prune forgets chats silent for longer than the longest window, and keeps the rest',
      async () => {
        const s = `"${opened.schema}"`;
        await sqlOn(
          opened.db,
          `INSERT INTO ${s}.window_chats (channel_id, chat_id, last_inbound_at, conversation_at) VALUES
          ('c', 'silent', now() - interval '9 days', NULL),
          ('c', 'wrote-a-week-ago', now() - interval '7 days', NULL),
          ('c', 'template-yesterday', now() - interval '10 days', now() - interval '1 day')`,
        );
        expect((await opened.store.prune({ olderThanMs: HOUR })).windows).toBe(1);
        const left = await sqlOn(opened.db, `SELECT chat_id FROM ${s}.window_chats ORDER BY 1`);
        expect(left.map((r) => r.chat_id)).toEqual(['template-yesterday', 'wrote-a-week-ago']);
      },
    );
  });
}
