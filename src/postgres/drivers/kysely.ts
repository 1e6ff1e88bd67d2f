import type { Row, SqlDriver, SqlSession } from '../sql-driver.js';

/** Kysely's `CompiledQuery` (its documented shape: what `CompiledQuery.raw(sql, parameters)` makes). */
interface CompiledRaw {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  readonly query: {
    readonly kind: 'RawNode';
    readonly sqlFragments: readonly string[];
    readonly parameters: readonly [];
  };
  readonly queryId: { readonly queryId: string };
}

/** What the stores use of a Kysely instance and of its `Transaction` (itself a Kysely). */
interface KyselyQueryable {
  executeQuery(query: CompiledRaw): Promise<{ rows: Row[] }>;
  withoutPlugins(): KyselyQueryable;
}
interface KyselyLike extends KyselyQueryable {
  transaction(): { execute<T>(fn: (trx: KyselyQueryable) => Promise<T>): Promise<T> };
  selectFrom: unknown;
}

/** Kysely (or its `Transaction`): `executeQuery`, `withoutPlugins` and the query builders. */
export function isKysely(db: unknown): db is KyselyLike {
  const d = db as Partial<KyselyLike> | null;
  return (
    typeof d?.executeQuery === 'function' &&
    typeof d.withoutPlugins === 'function' &&
    typeof d.selectFrom === 'function'
  );
}

/** `text` and its parameters as a compiled query, as `CompiledQuery.raw` builds it. */
const compiled = (text: string, params: readonly unknown[]): CompiledRaw => ({
  sql: text,
  parameters: params,
  query: { kind: 'RawNode', sqlFragments: [text], parameters: [] },
  queryId: { queryId: crypto.randomUUID() },
});

/**
 * Statements through `executeQuery`, without the instance's plugins: a CamelCasePlugin, say,
 * would rename the columns the stores read.
 */
export function kyselySession(db: KyselyQueryable): SqlSession {
  const plain = db.withoutPlugins();
  return { query: async (text, params = []) => (await plain.executeQuery(compiled(text, params))).rows };
}

/**
 * Kysely: statements as compiled queries, transactions through `db.transaction().execute`, whose
 * `trx` the user's code gets. No LISTEN: Kysely exposes no connection of its own.
 */
export function kyselyDriver(db: KyselyLike): SqlDriver {
  return {
    ...kyselySession(db),
    transaction: (fn) => db.transaction().execute((trx) => fn(kyselySession(trx), trx)),
  };
}
