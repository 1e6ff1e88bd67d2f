import type { Row, SqlDriver, SqlSession } from '../sql-driver.js';

/** What the stores use of a node-postgres `Pool`, `PoolClient` or `Client`. */
interface PgQueryable {
  query(text: string, params?: unknown[]): Promise<{ rows: Row[] }>;
}
type Notification = { channel: string; payload?: string };
interface PgClientLike extends PgQueryable {
  on(event: 'notification', listener: (message: Notification) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  off(event: 'notification', listener: (message: Notification) => void): unknown;
  off(event: 'error', listener: (error: Error) => void): unknown;
}
interface PgPoolClient extends PgClientLike {
  release(error?: Error | boolean): void;
}
interface PgPoolLike extends PgQueryable {
  connect(): Promise<PgPoolClient>;
  totalCount: number;
}

/** A pg Pool (has `totalCount`) or Client (has `connect` and `query`). */
export function isPg(db: unknown): db is PgPoolLike | PgClientLike {
  const d = db as Partial<PgPoolLike> | null;
  return typeof d?.query === 'function' && typeof d.connect === 'function';
}

const isPool = (db: PgPoolLike | PgClientLike): db is PgPoolLike =>
  typeof (db as PgPoolLike).totalCount === 'number';

const session = (c: PgQueryable): SqlSession => ({
  query: async (text, params) => (await c.query(text, params as unknown[])).rows,
});

async function inTransaction<T>(
  client: PgQueryable,
  fn: (tx: SqlSession, handle: unknown) => Promise<T>,
): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await fn(session(client), client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined); // a broken connection rolls back by itself
    throw error;
  }
}

/**
 * node-postgres: a Pool lends a client per transaction. A lone Client is one connection: its
 * transactions and statements take turns, since a statement sent while a transaction is open on it
 * would run inside it (and be rolled back with it).
 */
export function pgDriver(db: PgPoolLike | PgClientLike): SqlDriver {
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const mine = turn.then(work);
    turn = mine.catch(() => undefined);
    return mine;
  };
  const statements = session(db);
  return {
    query: isPool(db) ? statements.query : (text, params) => inTurn(() => statements.query(text, params)),
    async transaction(fn) {
      if (!isPool(db)) return inTurn(() => inTransaction(db, fn));
      const client = await db.connect();
      let broken: Error | undefined;
      try {
        return await inTransaction(client, fn);
      } catch (error) {
        broken = error as Error;
        throw error;
      } finally {
        client.release(broken);
      }
    },
    async listen(channel, onPayload, onLost) {
      const client = isPool(db) ? await db.connect() : (db as PgClientLike);
      const listener = (message: Notification) => {
        if (message.channel === channel) onPayload(message.payload ?? '');
      };
      // A broken connection goes back to the pool to be dropped; the store hears of it and listens again.
      let broken = false;
      const lost = (error: Error) => {
        if (broken) return;
        broken = true;
        client.off('notification', listener);
        if (isPool(db)) (client as PgPoolClient).release(error);
        onLost?.();
      };
      client.on('notification', listener);
      client.on('error', lost);
      try {
        await client.query(`LISTEN "${channel}"`);
      } catch (error) {
        client.off('notification', listener);
        client.off('error', lost);
        if (isPool(db) && !broken) (client as PgPoolClient).release(error as Error);
        throw error;
      }
      return async () => {
        if (broken) return;
        client.off('notification', listener);
        await client.query(`UNLISTEN "${channel}"`).catch(() => undefined);
        client.off('error', lost);
        if (isPool(db)) (client as PgPoolClient).release();
      };
    },
  };
}
