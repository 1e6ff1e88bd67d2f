// A tracker's first wait started by a listener, inside the delivery's transaction (an inbox
// worker's batch): the store's listening or polling it starts then belongs to no transaction, so
// once the delivery committed a status recorded later still reaches the wait. Every driver and ORM
// (Prisma, Kysely and Knex poll: their poll must not read through the ended transaction).
import { afterEach, describe, expect, it } from 'vitest';
import type { MessageStatusUpdate } from '../../src/schemas/events-v2.js';
import { DeliveryTracker } from '../../src/tracking/delivery-tracker.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { openStore, PGLITE_START_MS, postgresTargets, sqlOn, until } from '../support/postgres-targets.js';
import { messageAdd, post } from './inbox-suite.js';

for (const target of postgresTargets({ orms: true })) {
  describe(`a wait a listener starts, on ${target.name}`, () => {
    const closing: (() => Promise<unknown>)[] = [];
    afterEach(async () => {
      for (const close of closing.splice(0).reverse()) await close();
    });

    it(
      'hears a status recorded after the delivery committed',
      async () => {
        const { db, store, schema, close } = await openStore(target);
        closing.push(close, () => store.deliveries.close());
        const tracker = new DeliveryTracker({ store: store.deliveries });
        const hooks = new WebhookHandler({ secret: 'hook-secret', dispatch: store.inbox });
        hooks.on('error', () => {});
        let waiting: Promise<MessageStatusUpdate | string> | undefined;
        hooks.on('message.add', () => {
          waiting = tracker.waitFor('r-1', { until: 'sent', timeoutMs: 30_000 }).catch(String);
        });
        await hooks.handle(post(messageAdd('k1', 'chat-1', 'hi')));
        const worker = store.inbox.work(hooks, { pollIntervalMs: 20 });
        closing.push(() => worker.stop());
        const done = async () =>
          (await sqlOn(db, `SELECT state FROM "${schema}".inbox`)).every((row) => row.state === 'done');
        await until(async () => waiting !== undefined && (await done())); // committed
        await store.deliveries.record({ request_id: 'r-1', status: 'sent' } as MessageStatusUpdate);
        await expect(waiting).resolves.toMatchObject({ status: 'sent' });
      },
      PGLITE_START_MS + 60_000,
    );
  });
}
