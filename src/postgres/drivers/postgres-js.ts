import type { Row, SqlDriver, SqlSession } from '../sql-driver.js';

/** What the stores use of a postgres.js `sql` (and of the `sql` of `sql.begin`). */
interface PostgresJsLike {
  unsafe(text: string, params?: unknown[]): Promise<Row[]>;
  begin<T>(fn: (tx: PostgresJsLike) => Promise<T>): Promise<T>;
  listen(
    channel: string,
    onPayload: (payload: string) => void,
    onListen?: () => void,
  ): Promise<{ unlisten(): Promise<void> }>;
}

/** postgres.js: `sql` is a function with `unsafe` and `begin`. */
export function isPostgresJs(db: unknown): db is PostgresJsLike {
  const d = db as Partial<PostgresJsLike> | null;
  return typeof db === 'function' && typeof d?.unsafe === 'function' && typeof d.begin === 'function';
}

const session = (sql: PostgresJsLike): SqlSession => ({
  query: (text, params) => sql.unsafe(text, params as unknown[]),
});

/**
 * `sql.begin` (called by `begin` with its callback: postgres.js's own, or Drizzle's
 * `db.transaction` on postgres.js), for a connection that may drop. When it does, postgres.js
 * rejects `begin` at once, while the callback still runs, and sends the callback's ROLLBACK or
 * COMMIT, when it ends, on that connection: a write on a socket already gone, thrown where no one
 * can catch it (the process ends), or on the connection opened again in its place, outside this
 * transaction. So once `begin` has settled, the callback never settles: nothing more is sent on
 * its behalf. (Its `tx` is fenced by then, see `Database.transaction`.) The wait of one turn of the
 * event loop before a callback ends lets a `begin` rejected in the same turn be seen first.
 */
export async function beginOnce<H, T>(
  begin: (callback: (handle: H) => Promise<T>) => Promise<T>,
  fn: (handle: H) => Promise<T>,
): Promise<T> {
  let settled = false;
  const run = begin(async (handle) => {
    const ended = await fn(handle).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    if (settled) return new Promise<never>(() => {}); // held by nothing: collected with the callback
    if ('error' in ended) throw ended.error;
    return ended.result;
  });
  try {
    return await run;
  } finally {
    settled = true;
  }
}

/**
 * postgres.js: statements through `unsafe`, transactions through `begin`, LISTEN through `listen`.
 * postgres.js listens again by itself after its listening connection broke, calling `onListen`
 * each time it listens: from the second call on, a NOTIFY may have been missed (`onResumed`).
 * When it listens again it makes its listener anew, which the `unlisten` it first returned no
 * longer removes: a stopped listener is muted as well.
 */
export function postgresJsDriver(sql: PostgresJsLike): SqlDriver {
  return {
    ...session(sql),
    transaction: (fn) =>
      beginOnce(
        (callback) => sql.begin(callback),
        (tx: PostgresJsLike) => fn(session(tx), tx),
      ),
    async listen(channel, onPayload, _onLost, onResumed) {
      let listened = false;
      let stopped = false;
      const onListen = () => {
        if (listened && !stopped) onResumed?.();
        listened = true;
      };
      const heard = (payload: string) => {
        if (!stopped) onPayload(payload);
      };
      const { unlisten } = await sql.listen(channel, heard, onListen);
      return async () => {
        stopped = true;
        await unlisten();
      };
    },
  };
}
