// No status missed across a reconnect (DESIGN: What holds under a fleet's ordinary trouble): a
// status recorded by another instance while the tracker's LISTEN connection is down is read once
// it listens again, on a pg Pool and postgres.js; on a lone pg Client, LISTEN never joins an
// inbox batch's transaction (and is never rolled back with it). A real PostgreSQL.
import pg from 'pg';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresStore } from '../../src/postgres/store.js';
import { DeliveryTracker } from '../../src/tracking/delivery-tracker.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { freshSchema, postgresTargets, until } from '../support/postgres-targets.js';
import { messageAdd, post } from './inbox-suite.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A role of its own for the listening instance, so its new connections can be refused a while. */
const ROLE = 'mgsdk_listener';

for (const target of postgresTargets().filter((t) => t.name !== 'pglite')) {
  describe(`statuses across a reconnect on ${target.name}`, () => {
    const closing: (() => Promise<unknown>)[] = [];
    afterEach(async () => {
      for (const close of closing.splice(0).reverse()) await close();
    });

    /** The test's own connection (another instance); a store on it for `schema`. */
    async function admin(schema: string) {
      const client = new pg.Client({ connectionString: target.url() });
      await client.connect();
      closing.push(() => client.end());
      const store = postgresStore(client, { schema });
      await store.migrate();
      const record = (status: string) => store.deliveries.record({ request_id: 'r-1', status } as never);
      return { client, record };
    }

    it('a status recorded while the LISTEN connection was down is read once it listens again', async () => {
      const schema = freshSchema();
      const { client, record } = await admin(schema);
      await client.query(
        `DO $$ BEGIN CREATE ROLE ${ROLE} LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`,
      );
      await client.query(`ALTER ROLE ${ROLE} LOGIN`);
      await client.query(`GRANT USAGE ON SCHEMA "${schema}" TO ${ROLE}`);
      await client.query(`GRANT SELECT ON ALL TABLES IN SCHEMA "${schema}" TO ${ROLE}`);
      const url = new URL(target.url() as string);
      url.username = ROLE;
      // A pg Pool that closes idle connections at once: when the role is refused below, its only
      // connection is the LISTEN one, so it cannot listen again on one the server is ending.
      const db =
        target.name === 'pg'
          ? new pg.Pool({ connectionString: url.href, max: 2, idleTimeoutMillis: 10 })
          : postgres(url.href, { max: 2, onnotice: () => {} });
      if (db instanceof pg.Pool) db.on('error', () => {}); // an idle connection terminated below
      closing.push(() => (db instanceof pg.Pool ? db.end() : db.end({ timeout: 1 })));
      const store = postgresStore(db, { schema });
      closing.push(() => store.deliveries.close());

      await record('accepted');
      const tracker = new DeliveryTracker({ store: store.deliveries });
      const waiting = tracker.waitFor('r-1', { until: 'sent', timeoutMs: 15_000 });
      await until(() => tracker.statusOf('r-1') === 'accepted'); // listening, and read once
      if (db instanceof pg.Pool) await until(() => db.idleCount === 0);
      await client.query(`ALTER ROLE ${ROLE} NOLOGIN`); // its connections cannot come back yet
      const terminated = async () => {
        const { rows } = await client.query(
          `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE usename = $1`,
          [ROLE],
        );
        return rows[0].n === 0;
      };
      await until(terminated); // a connection that was logging in meanwhile included
      await record('sent'); // announced while nobody listens
      await sleep(300);
      await client.query(`ALTER ROLE ${ROLE} LOGIN`);
      await expect(waiting).resolves.toMatchObject({ status: 'sent' });
    }, 30_000);

    it.runIf(target.name === 'pg')(
      "on a lone Client, a tracker's LISTEN waits for the open inbox batch: a batch rolled back does not take it along",
      async () => {
        const schema = freshSchema();
        const { record } = await admin(schema);
        const lone = new pg.Client({ connectionString: target.url() });
        await lone.connect();
        closing.push(() => lone.end());
        const store = postgresStore(lone, { schema });
        closing.push(() => store.deliveries.close());
        const hooks = new WebhookHandler({ secret: 'hook-secret', dispatch: store.inbox });
        hooks.on('error', () => {});
        let started = false;
        hooks.on('message.add', async () => {
          started = true;
          await new Promise(() => {}); // past timeoutMs: the batch rolls back
        });
        await hooks.handle(post(messageAdd('k1', 'chat-1', 'hi')));
        const worker = store.inbox.work(hooks, { pollIntervalMs: 20, timeoutMs: 500 });
        closing.push(() => worker.stop());
        await until(() => started); // the batch's transaction is open on the Client
        const tracker = new DeliveryTracker({ store: store.deliveries });
        const waiting = tracker.waitFor('r-1', { until: 'sent', timeoutMs: 10_000 });
        await sleep(1_000); // the batch has timed out and rolled back
        await record('sent');
        await expect(waiting).resolves.toMatchObject({ status: 'sent' });
      },
      30_000,
    );
  });
}
