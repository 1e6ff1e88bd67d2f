// The types of messaging-gateway-sdk/postgres as a user writes against them.

import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import type postgres from 'postgres';
import { describe, expectTypeOf, it } from 'vitest';
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
