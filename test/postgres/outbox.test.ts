// store.outbox and store.deliveries (DESIGN: The CRM's own database): a send written in the
// caller's transaction, relayed at most once, its row following the statuses; statuses in a table
// and announced to every instance. On PGlite and a real PostgreSQL through pg and postgres.js, and
// through each ORM (Prisma, Drizzle, Kysely, Knex; those that cannot LISTEN poll).

import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import { GatewayValidationError } from '../../src/core/errors.js';
import { postgresStore } from '../../src/postgres/store.js';
import { DeliveryTracker } from '../../src/tracking/delivery-tracker.js';
import {
  canListen,
  onPGlite,
  openStore,
  PGLITE_START_MS,
  postgresTargets,
  sqlOn,
  until,
} from '../support/postgres-targets.js';
import { fakeGatewayForFile, params } from './outbox-fixtures.js';

const { gateway: fake, sends } = fakeGatewayForFile();

for (const target of postgresTargets({ orms: true })) {
  describe(`store.outbox on ${target.name}`, () => {
    let opened: Awaited<ReturnType<typeof openStore>>;
    beforeEach(async () => {
      opened = await openStore(target);
    }, PGLITE_START_MS);
    afterEach(async () => opened.close());
    const client = () => new GatewayClient({ baseUrl: fake().url, token: fake().token, logLevel: 'off' });
    const outbox = () => opened.store.outbox;
    const inTransaction = <T>(fn: (tx: unknown) => Promise<T>) =>
      // the user's own transaction, through the store's driver seam (as pg BEGIN, sql.begin, PGlite's transaction)
      import('../../src/postgres/driver.js').then(({ driverOf }) =>
        driverOf(opened.db).transaction((_s, tx) => fn(tx)),
      );

    it('sends what was committed, records its request_id, and never what was rolled back', async () => {
      const before = sends();
      const id = await inTransaction((tx) => outbox().send(tx, params('79001112233')));
      await inTransaction(async (tx) => {
        await outbox().send(tx, params('79004445566'));
        throw new Error('the order was not shipped after all');
      }).catch(() => undefined);
      expect(await outbox().get(id)).toMatchObject({ status: 'pending', request_id: null, sent_at: null });
      const relay = outbox().relay(client(), { pollIntervalMs: 10 });
      await until(async () => (await outbox().get(id))?.status === 'accepted');
      await relay.stop();
      const row = await outbox().get(id);
      expect(row?.request_id).toMatch(/./);
      expect(row?.sent_at).toBeInstanceOf(Date);
      expect(row?.created_at).toBeInstanceOf(Date);
      expect(sends() - before).toBe(1);
    });

    it('checks the send against the spec inside the caller’s transaction, writing nothing', async () => {
      const bad = { ...params('79001112233'), recipient: { chat_type: 'whatsapp', chat_id: '+7 900' } };
      await expect(inTransaction((tx) => outbox().send(tx, bad as never))).rejects.toBeInstanceOf(
        GatewayValidationError,
      );
      const [count] = await sqlOn(opened.db, `SELECT count(*)::int AS n FROM "${opened.schema}".outbox`);
      expect(count?.n).toBe(0);
    });

    it('a row found sending after its relay died becomes unknown, is reported, and is never sent again', async () => {
      const id = await inTransaction((tx) => outbox().send(tx, params('79007778899')));
      await sqlOn(
        opened.db,
        `UPDATE "${opened.schema}".outbox SET status = 'sending', lease_until = now() - interval '1 second' WHERE id = $1::bigint`,
        [id],
      );
      const before = sends();
      const reported: string[] = [];
      const relay = outbox().relay(client(), {
        pollIntervalMs: 10,
        onError: (e) => void reported.push(e.message),
      });
      await until(async () => (await outbox().get(id))?.status === 'unknown');
      await new Promise((resolve) => setTimeout(resolve, 100));
      await relay.stop();
      expect(reported.join()).toContain(`Outbox row ${id} is unknown`);
      expect(sends()).toBe(before);
    });

    it('a send that surely never left (connection refused) stays pending and is sent once the service is back', async () => {
      const before = sends();
      const id = await inTransaction((tx) => outbox().send(tx, params('79001230000')));
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise((resolve) => closed.close(resolve));
      const down = new GatewayClient({
        baseUrl: `http://127.0.0.1:${port}`, // nothing listens: refused before anything was sent
        token: fake().token,
        logLevel: 'off',
        maxRetries: 0,
      });
      const errors: string[] = [];
      const relay = outbox().relay(down, { pollIntervalMs: 10, onError: (e) => void errors.push(e.message) });
      await until(() => errors.length > 0);
      await relay.stop();
      expect((await outbox().get(id))?.status).toBe('pending');
      const up = outbox().relay(client(), { pollIntervalMs: 10 });
      await until(async () => (await outbox().get(id))?.status === 'accepted');
      await up.stop();
      expect(sends() - before).toBe(1);
    });

    it('a send the service refuses ends failed with its code; statuses reaching the handler move the row forward', async () => {
      const id = await inTransaction((tx) => outbox().send(tx, params('79001234500')));
      const relay = outbox().relay(client(), { pollIntervalMs: 10 });
      await until(async () => (await outbox().get(id))?.status === 'accepted');
      await relay.stop();
      const requestId = String((await outbox().get(id))?.request_id);
      const tracker = new DeliveryTracker({ store: opened.store.deliveries });
      await tracker.observe({ request_id: requestId, status: 'delivered' } as never);
      expect((await outbox().get(id))?.status).toBe('delivered');
      await tracker.observe({ request_id: requestId, status: 'sent' } as never);
      expect((await outbox().get(id))?.status).toBe('delivered'); // statuses only move forward
      await tracker.observe({ request_id: requestId, status: 'failed', reason: 'bad_contact' } as never);
      expect(await outbox().get(id)).toMatchObject({ status: 'failed', reason: 'bad_contact' });

      fake().failNext('POST', '/v2/messages', {
        status: 400,
        body: { error: 'TOO_MACH_ENTITIES' },
      } as never);
      const refusedId = await inTransaction((tx) => outbox().send(tx, params('79001234501')));
      const again = outbox().relay(client(), { pollIntervalMs: 10 });
      await until(async () => (await outbox().get(refusedId))?.status === 'failed');
      await again.stop();
    });
  });

  describe(`store.deliveries on ${target.name}`, () => {
    let opened: Awaited<ReturnType<typeof openStore>>;
    beforeEach(async () => {
      opened = await openStore(target);
    }, PGLITE_START_MS);
    afterEach(async () => opened.close());

    it('keeps statuses moving forward, finds a message by its id, and a waitFor on another instance resolves', async () => {
      const deliveries = opened.store.deliveries;
      await deliveries.record({ request_id: 'r-1', message_id: 'm-1', status: 'sent' } as never);
      await deliveries.record({ request_id: 'r-1', status: 'accepted' } as never);
      expect((await deliveries.get('m-1'))?.best?.status).toBe('sent');
      expect(await deliveries.record({ message_id: 'm-none', status: 'read' } as never)).toBeUndefined();

      // a second instance: its own handle (PGlite: the same one), its own store object
      const other = await target.open();
      const elsewhere = postgresStore(other.db, { schema: opened.schema });
      const waiting = new DeliveryTracker({ store: elsewhere.deliveries }).waitFor('r-2', {
        until: 'delivered',
        timeoutMs: 10_000,
      });
      await new Promise((resolve) => setTimeout(resolve, 200)); // listening
      await new DeliveryTracker({ store: deliveries }).observe({
        request_id: 'r-2',
        status: 'delivered',
      } as never);
      await expect(waiting).resolves.toMatchObject({ status: 'delivered' });
      await elsewhere.deliveries.close();
      await other.close();
    });

    it.skipIf(onPGlite(target) || !canListen(target))(
      'listens again after its connection dropped: a later waitFor on this instance still hears another',
      async () => {
        const other = await target.open();
        const elsewhere = postgresStore(other.db, { schema: opened.schema });
        const tracker = new DeliveryTracker({ store: elsewhere.deliveries });
        const first = tracker.waitFor('r-3', { until: 'delivered', timeoutMs: 10_000 });
        await new Promise((resolve) => setTimeout(resolve, 200)); // listening
        await sqlOn(
          opened.db,
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
        );
        await new Promise((resolve) => setTimeout(resolve, 500)); // the drop noticed, listening anew
        const second = tracker.waitFor('r-4', { until: 'delivered', timeoutMs: 5_000 });
        await new Promise((resolve) => setTimeout(resolve, 200));
        const here = new DeliveryTracker({ store: opened.store.deliveries });
        await here.observe({ request_id: 'r-3', status: 'delivered' } as never);
        await here.observe({ request_id: 'r-4', status: 'delivered' } as never);
        await expect(first).resolves.toMatchObject({ status: 'delivered' });
        await expect(second).resolves.toMatchObject({ status: 'delivered' });
        if (target.name === 'pg') {
          const pool = other.db as { totalCount: number; idleCount: number };
          expect(pool.totalCount - pool.idleCount).toBe(1); // the new listener; the broken one went back
        }
        await elsewhere.deliveries.close();
        await other.close();
      },
    );
  });
}
