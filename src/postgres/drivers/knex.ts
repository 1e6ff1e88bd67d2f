import type { Row, SqlDriver, SqlSession } from '../sql-driver.js';

/** What the stores use of a Knex instance (client `pg`) and of its transaction: `raw`. */
interface KnexQueryable {
  raw(sql: string, bindings: readonly unknown[]): PromiseLike<{ rows: Row[] }>;
}
interface KnexLike extends KnexQueryable {
  transaction<T>(fn: (trx: KnexQueryable) => Promise<T>): Promise<T>;
}

/** Knex (or its transaction): a function with `raw` and `transaction`. */
export function isKnex(db: unknown): db is KnexLike {
  const d = db as Partial<KnexLike> | null;
  return typeof db === 'function' && typeof d?.raw === 'function' && typeof d.transaction === 'function';
}

/**
 * `$1`-style SQL in Knex's form: each `$n` a `?` with its value in `bindings` (in the order they
 * appear, so a parameter used twice is bound twice); a `?` of the text itself escaped as `\?`.
 */
export function knexRaw(text: string, params: readonly unknown[]): [string, unknown[]] {
  const bindings: unknown[] = [];
  const sql = text.replaceAll('?', '\\?').replace(/\$(\d+)/g, (_, n: string) => {
    bindings.push(params[Number(n) - 1]);
    return '?';
  });
  return [sql, bindings];
}

/** Statements through `raw`: Knex's pg client answers with pg's result, `{ rows }`. */
export const knexSession = (knex: KnexQueryable): SqlSession => ({
  query: async (text, params = []) => (await knex.raw(...knexRaw(text, params))).rows,
});

/**
 * Knex: statements through `raw`, transactions through `knex.transaction`, whose `trx` the user's
 * code gets. No LISTEN: Knex exposes no connection of its own.
 */
export function knexDriver(knex: KnexLike): SqlDriver {
  return {
    ...knexSession(knex),
    transaction: (fn) => knex.transaction((trx) => fn(knexSession(trx), trx)),
  };
}
