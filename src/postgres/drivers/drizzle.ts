import { GatewayError } from '../../core/errors.js';
import type { Row, SqlDriver, SqlSession } from '../sql-driver.js';
import { beginOnce } from './postgres-js.js';

/** What the stores use of a Drizzle database (pg-core: node-postgres, postgres.js, PGlite) and of its `tx`. */
interface DrizzleQueryable {
  execute(query: unknown): PromiseLike<{ rows: Row[] } | Row[]>;
}
interface DrizzleLike extends DrizzleQueryable {
  transaction<T>(fn: (tx: DrizzleQueryable) => Promise<T>): Promise<T>;
  $client: unknown;
}

/** drizzle-orm's `sql` tag, the one part of Drizzle the SDK loads itself. */
interface DrizzleSql {
  raw(text: string): unknown;
  param(value: unknown): unknown;
  join(chunks: unknown[]): unknown;
}

/** A Drizzle database: `execute`, `transaction`, and the driver's client as `$client`. */
export function isDrizzle(db: unknown): db is DrizzleLike {
  const d = db as Partial<DrizzleLike> | null;
  return (
    typeof d?.execute === 'function' && typeof d.transaction === 'function' && '$client' in (d as object)
  );
}

/** A Drizzle database or transaction (`tx` of `db.transaction`): `execute` beside the query builders. */
export function isDrizzleSession(handle: unknown): handle is DrizzleQueryable {
  const h = handle as (Partial<DrizzleQueryable> & { select?: unknown }) | null;
  return typeof h?.execute === 'function' && typeof h.select === 'function';
}

let loaded: Promise<DrizzleSql> | undefined;

/**
 * drizzle-orm's `sql`, imported once: a statement with parameters reaches Drizzle only as its SQL
 * object. A Drizzle database in hand means drizzle-orm is installed (an optional peer).
 */
function drizzleSql(): Promise<DrizzleSql> {
  loaded ??= import('drizzle-orm' as string).then(
    (module: { sql: DrizzleSql }) => module.sql,
    (error: unknown) => {
      loaded = undefined;
      throw new GatewayError('postgresStore(db) on Drizzle imports drizzle-orm: npm install drizzle-orm', {
        cause: error,
      });
    },
  );
  return loaded;
}

/** `text` with `$1`-style parameters as Drizzle SQL: the text between them raw, each value a parameter. */
async function toSql(text: string, params: readonly unknown[]): Promise<unknown> {
  const sql = await drizzleSql();
  if (params.length === 0) return sql.raw(text);
  const chunks: unknown[] = [];
  let from = 0;
  for (const match of text.matchAll(/\$(\d+)/g)) {
    chunks.push(sql.raw(text.slice(from, match.index)), sql.param(params[Number(match[1]) - 1]));
    from = match.index + match[0].length;
  }
  chunks.push(sql.raw(text.slice(from)));
  return sql.join(chunks);
}

/** Statements through `execute`: node-postgres and PGlite answer `{ rows }`, postgres.js the rows. */
export const drizzleSession = (db: DrizzleQueryable): SqlSession => ({
  async query(text, params = []) {
    const result = await db.execute(await toSql(text, params));
    return Array.isArray(result) ? result : result.rows;
  },
});

/**
 * Drizzle: statements through `execute`, transactions through `db.transaction`, whose `tx` the
 * user's code gets; LISTEN through the driver's client (`$client`), given as `listen`. On
 * postgres.js (`onPostgresJs`), Drizzle's transaction is postgres.js's `sql.begin`: it is run as
 * the store runs its own, so that a connection dropped under it sends nothing after (`beginOnce`).
 */
export function drizzleDriver(
  db: DrizzleLike,
  client: { listen: SqlDriver['listen']; onPostgresJs: boolean },
): SqlDriver {
  const run = <T>(fn: (tx: SqlSession, handle: unknown) => Promise<T>) =>
    client.onPostgresJs
      ? beginOnce(
          (callback: (tx: DrizzleQueryable) => Promise<T>) => db.transaction(callback),
          (tx) => fn(drizzleSession(tx), tx),
        )
      : db.transaction((tx) => fn(drizzleSession(tx), tx));
  return {
    ...drizzleSession(db),
    transaction: run,
    ...(client.listen ? { listen: client.listen } : {}),
  };
}
