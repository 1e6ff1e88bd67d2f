// The types of messaging-gateway-sdk/postgres as a user writes against them.

import type { PGlite } from '@electric-sql/pglite';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { integer, pgTable, text } from 'drizzle-orm/pg-core';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import type { Knex } from 'knex';
import type { Kysely, Transaction } from 'kysely';
import type pg from 'pg';
import type postgres from 'postgres';
import { describe, expectTypeOf, it } from 'vitest';
import type { Prisma, PrismaClient } from '../../examples/prisma/generated/client.js';
import { WebhookHandler } from '../../src/index.js';
import { type OutboxRow, postgresStore, type WebhookQueue } from '../../src/postgres.js';

declare const db: object;

describe('postgresStore', () => {
  it('gives a DedupeStore and a queue the handler takes, and listeners a context with tx', () => {
    const store = postgresStore(db);
    expectTypeOf(store.inbox).toMatchTypeOf<WebhookQueue>();
    const hooks = new WebhookHandler({ secret: 's', dedupe: store.dedupe, dispatch: store.inbox });
    hooks.on('message.add', (_event, context) => expectTypeOf(context.tx).toEqualTypeOf<unknown>());
    hooks.respond('crm_entities.contact_add', async (_event, { tx, signal }) => {
      expectTypeOf(tx).toEqualTypeOf<unknown>();
      expectTypeOf(signal).toEqualTypeOf<AbortSignal>();
      return { id: '1', name: 'A' };
    });
    expectTypeOf(store.outbox.get).returns.resolves.toEqualTypeOf<OutboxRow | undefined>();
    // @ts-expect-error: a send is checked against the spec's params
    void store.outbox.send(db, { channel_id: 'c' });
  });
});

describe('store.tx(context)', () => {
  it("is the store's driver's own transaction handle, with no cast", () => {
    const pool = postgresStore({} as pg.Pool);
    const client = postgresStore({} as pg.Client);
    const sql = postgresStore({} as postgres.Sql);
    const lite = postgresStore({} as PGlite);
    const hooks = new WebhookHandler({ secret: 's', dedupe: pool.dedupe, dispatch: pool.inbox });
    hooks.on('message.add', (_event, context) => {
      expectTypeOf(pool.tx(context)).toEqualTypeOf<pg.PoolClient>();
      expectTypeOf(client.tx(context)).toEqualTypeOf<pg.Client>();
      expectTypeOf(sql.tx(context)).toEqualTypeOf<postgres.TransactionSql<{}>>();
      expectTypeOf(lite.tx(context).query).toBeFunction();
    });
    hooks.respond('crm_entities.contact_add', async (_event, context) => {
      const { rows } = await pool.tx(context).query<{ id: number }>('SELECT 1 AS id');
      return { id: String(rows[0]?.id), name: 'A' };
    });
  });
});

const contacts = pgTable('contacts', { id: integer().primaryKey(), name: text().notNull() });
interface CrmTables {
  contacts: { id: number; name: string };
}

describe('store.tx(context) on an ORM', () => {
  it("is the ORM's own transaction, its models and builders typed, with no cast", () => {
    const prisma = postgresStore({} as PrismaClient);
    const drizzlePg = postgresStore({} as NodePgDatabase<{ contacts: typeof contacts }>);
    const drizzleJs = postgresStore({} as PostgresJsDatabase);
    const drizzleLite = postgresStore({} as PgliteDatabase);
    const kysely = postgresStore({} as Kysely<CrmTables>);
    const knex = postgresStore({} as Knex);
    const hooks = new WebhookHandler({ secret: 's', dedupe: prisma.dedupe, dispatch: prisma.inbox });
    hooks.respond('crm_entities.contact_add', async (_event, context) => {
      expectTypeOf(prisma.tx(context)).toEqualTypeOf<Prisma.TransactionClient>();
      const contact = await prisma.tx(context).contact.create({ data: { name: 'Ann' } });
      expectTypeOf(contact.id).toEqualTypeOf<number>();
      // @ts-expect-error: a model the schema does not have
      void prisma.tx(context).nothing;
      return { id: String(contact.id), name: contact.name };
    });
    hooks.on('message.add', async (_event, context) => {
      await drizzlePg.tx(context).insert(contacts).values({ id: 1, name: 'Ann' });
      expectTypeOf(drizzlePg.tx(context).rollback).toBeFunction();
      expectTypeOf(drizzleJs.tx(context).select).toBeFunction();
      expectTypeOf(drizzleLite.tx(context).execute).toBeFunction();
      expectTypeOf(kysely.tx(context)).toEqualTypeOf<Transaction<CrmTables>>();
      await kysely.tx(context).insertInto('contacts').values({ id: 1, name: 'Ann' }).execute();
      // @ts-expect-error: a table Kysely's DB type does not have
      void kysely.tx(context).insertInto('nothing');
      expectTypeOf(knex.tx(context)).toEqualTypeOf<Knex.Transaction>();
      await knex.tx(context)('contacts').insert({ id: 1, name: 'Ann' });
    });
  });

  it("store.outbox.send takes the ORM's transaction", async () => {
    const prisma = {} as PrismaClient;
    const store = postgresStore(prisma);
    await prisma.$transaction(async (tx) => {
      await tx.order.update({ where: { id: 'o-1' }, data: { shipped: true } });
      expectTypeOf(
        await store.outbox.send(tx, {
          channel_id: 'c',
          recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
          text: 'Shipped',
        }),
      ).toEqualTypeOf<string>();
    });
  });
});
