import { AsyncLocalStorage } from 'node:async_hooks';
import { GatewayError } from '../core/errors.js';
import { messageOf } from '../internal/message-of.js';
import { isPg, pgDriver } from './drivers/pg.js';
import { isPgLite, pgliteDriver } from './drivers/pglite.js';
import { isPostgresJs, postgresJsDriver } from './drivers/postgres-js.js';
import { Fence } from './fence.js';
import type { Row, SqlDriver, SqlSession } from './sql-driver.js';

export type { Row, SqlDriver, SqlSession } from './sql-driver.js';

/** The database handles `postgresStore` accepts: a pg `Pool` or `Client`, a postgres.js `sql`, a PGlite. */
export type PostgresDatabase = object;

/** The adapter for `db`, told apart by the members each driver has; a typed error for anything else. */
export function driverOf(db: unknown): SqlDriver {
  if (isPostgresJs(db)) return postgresJsDriver(db);
  if (isPgLite(db)) return pgliteDriver(db);
  if (isPg(db)) return pgDriver(db);
  throw new GatewayError(
    'postgresStore(db): db must be a pg Pool or Client, a postgres.js `sql`, or a PGlite instance',
  );
}

/** A transaction of the store and the driver's handle of it. */
interface Ambient {
  tx: SqlSession;
  handle: unknown;
}

/**
 * The driver as the stores use it: inside one of the store's transactions (a worker running
 * listeners, a responder) every query of the store joins that transaction, so what a listener
 * records through the store (a status, an outbox row) commits with the delivery, and a
 * one-connection database (PGlite) never waits on itself.
 */
export class Database implements SqlSession {
  readonly #driver: SqlDriver;
  readonly #ambient = new AsyncLocalStorage<Ambient>();

  constructor(driver: SqlDriver) {
    this.#driver = driver;
  }

  /** Runs one statement, in the transaction under way when there is one. */
  query(text: string, params?: readonly unknown[]): Promise<Row[]> {
    const session = this.#ambient.getStore()?.tx ?? this.#driver;
    return session.query(text, params).catch((error: unknown) => Promise.reject(dbError(error)));
  }

  /** Runs `fn` in a transaction (the one under way, when there is one). */
  async transaction<T>(fn: (tx: SqlSession, handle: unknown) => Promise<T>): Promise<T> {
    const ambient = this.#ambient.getStore();
    if (ambient) return fn(ambient.tx, ambient.handle);
    // Closed once the store's work in the transaction ended (before the driver commits or rolls
    // back), or once the driver gave the transaction up (its connection dropped): a listener or
    // responder still running then (past its time limit) can write nothing more, neither through
    // its `tx` nor through the store.
    const fence = new Fence();
    try {
      return await this.#driver.transaction(async (tx, handle) => {
        const ambient = { tx: fence.session(tx), handle: fence.handle(handle) };
        try {
          return await this.#ambient.run(ambient, () => fn(ambient.tx, ambient.handle));
        } finally {
          fence.close();
        }
      });
    } finally {
      fence.close();
    }
  }

  /** LISTEN on `channel`; resolves to the function that stops it (see `SqlDriver.listen`). */
  listen(
    channel: string,
    onPayload: (payload: string) => void,
    onLost?: () => void,
    onResumed?: () => void,
  ): Promise<() => Promise<void>> {
    return this.#driver.listen(channel, onPayload, onLost, onResumed);
  }
}

/** A driver's failure as a retryable GatewayError that says where it came from. */
export function dbError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError(`PostgreSQL failed: ${messageOf(error)}`, { cause: error, retryable: true });
}

/**
 * A session on a transaction handle the user passes back (a pg client, a postgres.js `sql` of
 * `sql.begin`, a PGlite transaction): pg and PGlite answer `query` with `{ rows }`, postgres.js
 * has `unsafe`.
 */
export function sessionOf(handle: unknown): SqlSession {
  const h = handle as {
    unsafe?: (text: string, params?: unknown[]) => Promise<Row[]>;
    query?: (text: string, params?: unknown[]) => Promise<{ rows: Row[] }>;
  } | null;
  if (typeof h?.unsafe === 'function')
    return { query: (text, params) => h.unsafe!(text, params as unknown[]) };
  if (typeof h?.query === 'function')
    return { query: async (text, params) => (await h.query!(text, params as unknown[])).rows };
  throw new GatewayError(
    'tx must be the transaction handle of a pg client, a postgres.js sql.begin, or a PGlite transaction',
  );
}
