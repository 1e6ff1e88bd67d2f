// The ORM the CRM already uses (DESIGN: The CRM's own database): with postgresStore on Prisma,
// Drizzle, Kysely or Knex, `tx` is the ORM's own transaction, and the user's models written
// through it commit with the SDK's bookkeeping, once: a responder's contact, a listener's row, a
// send promised in the user's ORM transaction. A write built in time but run after its delivery
// timed out (Drizzle's, Knex's and Prisma's builders run on `await`, Kysely's on `execute()`)
// never commits. On a real PostgreSQL, and Drizzle on PGlite.
import { pgTable, serial, text } from 'drizzle-orm/pg-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/core/errors.js';
import { driverOf } from '../../src/postgres/driver.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { fixture } from '../support/fixtures.js';
import {
  type OrmTargetName,
  openStore,
  PGLITE_START_MS,
  postgresTargets,
  sqlOn,
  until,
} from '../support/postgres-targets.js';
import { messageAdd, post } from './inbox-suite.js';

const contacts = pgTable('contacts', { id: serial().primaryKey(), name: text().notNull() });

/** A write of a contact through an ORM's transaction, built now; the function returned runs it. */
type Build = (tx: unknown, name: string) => () => PromiseLike<unknown>;
/** The user's own transaction of the ORM. */
type Transaction = (db: unknown, fn: (tx: unknown) => Promise<unknown>) => Promise<unknown>;

// The ORMs' own calls, typed loosely: the typed forms are in test/types/postgres.test-d.ts.
type Callable = { transaction(fn: unknown): Promise<unknown> };
const drizzle = {
  insert: ((tx: { insert(t: unknown): { values(v: object): PromiseLike<unknown> } }, name: string) => {
    const insert = tx.insert(contacts).values({ name });
    return () => insert;
  }) as Build,
  transaction: ((db: Callable, fn) => db.transaction(fn)) as Transaction,
  nests: true, // tx.transaction(fn) is a savepoint
};

const kysely = {
  insert: ((
    tx: { insertInto(t: string): { values(v: object): { execute(): Promise<unknown> } } },
    name: string,
  ) => {
    const insert = tx.insertInto('contacts').values({ name });
    return () => insert.execute();
  }) as Build,
  transaction: ((db: { transaction(): { execute(fn: unknown): Promise<unknown> } }, fn) =>
    db.transaction().execute(fn)) as Transaction,
};

/** Each ORM's own insert (its model or query builder), its own transaction, and whether `transaction` nests in `tx`. */
const ORMS: Record<OrmTargetName, { insert: Build; transaction: Transaction; nests?: boolean }> = {
  prisma: {
    insert: ((tx: { contact: { create(a: object): PromiseLike<unknown> } }, name: string) => {
      const create = tx.contact.create({ data: { name } });
      return () => create;
    }) as Build,
    transaction: ((db: { $transaction(fn: unknown): Promise<unknown> }, fn) =>
      db.$transaction(fn)) as Transaction,
  },
  'drizzle (pg)': drizzle,
  'drizzle (postgres.js)': drizzle,
  'drizzle (pglite)': drizzle,
  kysely,
  'kysely (pglite)': kysely,
  knex: {
    insert: ((tx: (table: string) => { insert(v: object): PromiseLike<unknown> }, name: string) => {
      const insert = tx('contacts').insert({ name });
      return () => insert;
    }) as Build,
    transaction: ((db: Callable, fn) => db.transaction(fn)) as Transaction,
    nests: true,
  },
};

/** A contact_add (a CRM request) with the idempotency key `key`. */
const contactAdd = (key: string) => {
  const body = fixture('v2', 'crm_entities.contact_add') as { meta: object };
  return { ...body, meta: { ...body.meta, idempotency_key: key } };
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const targets = postgresTargets({ orms: true }).filter((t) => t.name in ORMS);

for (const target of targets) {
  const orm = ORMS[target.name as OrmTargetName];
  describe(`the CRM's models through ${target.name}'s own transaction`, () => {
    let opened: Awaited<ReturnType<typeof openStore>>;
    beforeEach(async () => {
      opened = await openStore(target);
      // The models' table (public, as the ORMs' models name it): emptied for each test.
      await sqlOn(
        opened.db,
        'CREATE TABLE IF NOT EXISTS contacts (id serial PRIMARY KEY, name text NOT NULL)',
      );
      await sqlOn(opened.db, 'DELETE FROM contacts');
    }, PGLITE_START_MS);
    afterEach(async () => opened.close());
    const names = async () =>
      (await sqlOn(opened.db, 'SELECT name FROM contacts ORDER BY id')).map((row) => row.name);

    it("a responder's model write commits with its reply; a failing one leaves neither", async () => {
      const hooks = new WebhookHandler({
        secret: 'hook-secret',
        dedupe: opened.store.dedupe,
        dispatch: 'await',
      });
      hooks.on('error', () => {});
      let calls = 0;
      hooks.respond('crm_entities.contact_add', async (_event, context) => {
        await orm.insert(opened.store.tx(context), `Ann ${++calls}`)();
        if (calls === 1) throw new Error('CRM down');
        return { id: 'c-1', name: 'Ann' };
      });
      expect((await hooks.handle(post(contactAdd('k-1')))).status).toBe(500);
      expect(await names()).toEqual([]);
      const retry = await hooks.handle(post(contactAdd('k-1')));
      expect(retry.status).toBe(200);
      expect((await hooks.handle(post(contactAdd('k-1')))).body).toEqual(retry.body);
      expect(await names()).toEqual(['Ann 2']);
    });

    it("a listener's model write commits once, with the delivery", async () => {
      const hooks = new WebhookHandler({ secret: 'hook-secret', dispatch: opened.store.inbox });
      hooks.on('message.add', async ({ data }, context) => {
        await orm.insert(opened.store.tx(context), String(data[0]?.text))();
      });
      for (let i = 0; i < 4; i++)
        await hooks.handle(post(messageAdd(`m-${i}`, `chat-${i % 2}`, `text ${i}`)));
      const worker = opened.store.inbox.work(hooks, { concurrency: 2, pollIntervalMs: 10 });
      await until(async () => (await names()).length === 4);
      await worker.stop();
      expect((await names()).sort()).toEqual(['text 0', 'text 1', 'text 2', 'text 3']);
    });

    it("store.outbox.send joins the ORM's own transaction: its row exists only if that commits", async () => {
      const params = {
        channel_id: 'ch-1',
        recipient: { chat_type: 'whatsapp', chat_id: '79001112233' },
        text: 'Shipped',
      } as const;
      const id = String(
        await orm.transaction(opened.db, async (tx) => {
          await orm.insert(tx, 'Order o-1')();
          return opened.store.outbox.send(tx, params);
        }),
      );
      await expect(
        orm.transaction(opened.db, async (tx) => {
          await opened.store.outbox.send(tx, params);
          throw new Error('not shipped after all');
        }),
      ).rejects.toThrow('not shipped after all');
      expect(await opened.store.outbox.get(id)).toMatchObject({ status: 'pending' });
      const rows = await sqlOn(opened.db, `SELECT id::text AS id FROM "${opened.schema}".outbox`);
      expect(rows).toEqual([{ id }]);
      expect(await names()).toEqual(['Order o-1']);
    });

    /**
     * Runs a delivery whose first attempt starts `late` (a write through `tx`) and returns, on a
     * worker whose timeoutMs (150 ms) cuts it; then retries it on a worker with the default
     * timeoutMs, whose attempt writes 'on time'. What `late` settled with.
     */
    async function lateWrite(late: (tx: unknown) => Promise<unknown>): Promise<unknown> {
      const hooks = new WebhookHandler({ secret: 'hook-secret', dispatch: opened.store.inbox });
      hooks.on('error', () => {});
      let first: Promise<unknown> | undefined;
      hooks.on('message.add', async (_event, context) => {
        const tx = opened.store.tx(context);
        if (first) return void (await orm.insert(tx, 'on time')());
        first = late(tx).then(
          () => 'written',
          (error: unknown) => error,
        );
        await first;
      });
      await hooks.handle(post(messageAdd('k-late', 'c1', 'x')));
      const cutting = opened.store.inbox.work(hooks, { pollIntervalMs: 10, timeoutMs: 150 });
      let outcome: unknown;
      try {
        await until(() => first !== undefined);
        outcome = await first;
      } finally {
        await cutting.stop();
      }
      await sqlOn(opened.db, `UPDATE "${opened.schema}".inbox SET run_at = now()`); // the backoff passed
      const worker = opened.store.inbox.work(hooks, { pollIntervalMs: 10 });
      try {
        await until(async () => (await opened.store.inbox.get('1'))?.state === 'done');
      } finally {
        await worker.stop();
      }
      return outcome;
    }

    it('a write built in time but run after its delivery timed out is refused and never commits', async () => {
      const refused = await lateWrite((tx) => {
        const write = orm.insert(tx, 'late'); // built inside the transaction...
        return sleep(400).then(write); // ...run after the worker's timeoutMs
      });
      expect(refused).toBeInstanceOf(GatewayError);
      expect((refused as GatewayError).message).toMatch(/transaction ended/);
      expect(await names()).toEqual(['on time']);
    });

    it.skipIf(!orm.nests)(
      "a write in the ORM's nested transaction after its delivery timed out never commits",
      async () => {
        // What the late write settled with. The nested transaction itself never settles: ending
        // it would send its savepoint's RELEASE or ROLLBACK TO on a connection that may by then
        // be in another delivery's transaction.
        const refused = await lateWrite(
          (tx) =>
            new Promise((written, refused) => {
              void orm.transaction(tx, async (inner) => {
                await sleep(400);
                try {
                  written(await orm.insert(inner, 'late')());
                } catch (error) {
                  refused(error);
                  throw error;
                }
              });
            }),
        );
        expect(refused).toBeInstanceOf(GatewayError);
        expect((refused as GatewayError).message).toMatch(/transaction ended/);
        expect(await names()).toEqual(['on time']);
      },
    );

    it.skipIf(target.name !== 'knex')(
      "a listener's trx.commit() is refused: the delivery's writes still commit once, with it",
      async () => {
        const hooks = new WebhookHandler({ secret: 'hook-secret', dispatch: opened.store.inbox });
        const errors: unknown[] = [];
        hooks.on('error', (error) => void errors.push(error));
        let calls = 0;
        hooks.on('message.add', async (_event, context) => {
          const trx = opened.store.tx(context) as unknown as { commit(): Promise<unknown> };
          await orm.insert(trx, `call ${++calls}`)();
          if (calls === 1) await trx.commit();
        });
        await hooks.handle(post(messageAdd('k-commit', 'c1', 'x')));
        const worker = opened.store.inbox.work(hooks, { pollIntervalMs: 10 });
        try {
          await until(() => errors.length > 0);
          await sqlOn(opened.db, `UPDATE "${opened.schema}".inbox SET run_at = now()`); // the backoff passed
          await until(async () => (await opened.store.inbox.get('1'))?.state === 'done');
        } finally {
          await worker.stop();
        }
        expect(String(errors[0])).toMatch(/the store commits tx itself/);
        expect(await names()).toEqual(['call 2']);
      },
    );
  });
}

describe('driverOf', () => {
  it('names every database it takes when given another', () => {
    expect(() => driverOf({ query: 1 })).toThrow(
      /pg Pool or Client, a postgres.js `sql`, a PGlite instance, a Prisma client, a Drizzle database, a Kysely instance or a Knex instance/,
    );
  });
});
