import type { Row, SqlDriver, SqlSession } from '../sql-driver.js';

/** What the stores use of a postgres.js `sql` (and of the `sql` of `sql.begin`). */
interface PostgresJsLike {
  unsafe(text: string, params?: unknown[]): Promise<Row[]>;
  begin<T>(fn: (tx: PostgresJsLike) => Promise<T>): Promise<T>;
  listen(channel: string, onPayload: (payload: string) => void): Promise<{ unlisten(): Promise<void> }>;
}

/** postgres.js: `sql` is a function with `unsafe` and `begin`. */
export function isPostgresJs(db: unknown): db is PostgresJsLike {
  const d = db as Partial<PostgresJsLike> | null;
  return typeof db === 'function' && typeof d?.unsafe === 'function' && typeof d.begin === 'function';
}

const session = (sql: PostgresJsLike): SqlSession => ({
  query: (text, params) => sql.unsafe(text, params as unknown[]),
});

/** postgres.js: statements through `unsafe`, transactions through `begin`, `listen` as it is. */
export function postgresJsDriver(sql: PostgresJsLike): SqlDriver {
  return {
    ...session(sql),
    transaction: (fn) => sql.begin((tx) => fn(session(tx), tx)),
    async listen(channel, onPayload) {
      const { unlisten } = await sql.listen(channel, onPayload);
      return unlisten;
    },
  };
}
