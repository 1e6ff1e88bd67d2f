import type { Row, SqlDriver, SqlSession } from '../sql-driver.js';

/** What the stores use of a PGlite (and of its transactions). */
interface PgLiteQueryable {
  query(text: string, params?: unknown[]): Promise<{ rows: Row[] }>;
}
interface PgLiteLike extends PgLiteQueryable {
  transaction<T>(fn: (tx: PgLiteQueryable) => Promise<T>): Promise<T>;
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  waitReady: Promise<void>;
}

/** PGlite: `query`, `transaction`, `listen`, and `waitReady`. */
export function isPgLite(db: unknown): db is PgLiteLike {
  const d = db as Partial<PgLiteLike> | null;
  return (
    typeof d?.transaction === 'function' && typeof d.listen === 'function' && 'waitReady' in (d as object)
  );
}

const session = (c: PgLiteQueryable): SqlSession => ({
  query: async (text, params) => (await c.query(text, params as unknown[])).rows,
});

/** PGlite: one connection in process; its own `transaction` queues the others. */
export function pgliteDriver(db: PgLiteLike): SqlDriver {
  return {
    ...session(db),
    transaction: (fn) => db.transaction((tx) => fn(session(tx), tx)),
    listen: (channel, onPayload) => db.listen(channel, onPayload),
  };
}
