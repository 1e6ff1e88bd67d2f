import { AsyncLocalStorage } from 'node:async_hooks';
import { GatewayError } from '../core/errors.js';
import { messageOf } from '../internal/message-of.js';
import { drizzleDriver, drizzleSession, isDrizzle, isDrizzleSession } from './drivers/drizzle.js';
import { isKnex, knexDriver, knexSession } from './drivers/knex.js';
import { isKysely, kyselyDriver, kyselySession } from './drivers/kysely.js';
import { hearUnderOrm, isPg, pgDriver } from './drivers/pg.js';
import { isPgLite, pgliteDriver } from './drivers/pglite.js';
import { isPostgresJs, postgresJsDriver } from './drivers/postgres-js.js';
import { isPrisma, isPrismaSession, prismaDriver, prismaSession } from './drivers/prisma.js';
import { Fence } from './fence.js';
import type { Row, SqlDriver, SqlSession } from './sql-driver.js';

export type { Row, SqlDriver, SqlSession } from './sql-driver.js';

/**
 * The database handles `postgresStore` accepts: a pg `Pool` or `Client`, a postgres.js `sql`, a
 * PGlite; or an ORM on one of them: a Prisma client (7, with a driver adapter), a Drizzle
 * database, a Kysely instance, a Knex instance.
 */
export type PostgresDatabase = object;

const DATABASES =
  'a pg Pool or Client, a postgres.js `sql`, a PGlite instance, a Prisma client, a Drizzle database, a Kysely instance or a Knex instance';

/** The adapter for `db`, told apart by the members each driver has; a typed error for anything else. */
export function driverOf(db: unknown): SqlDriver {
  if (isPostgresJs(db)) return postgresJsDriver(db);
  if (isKnex(db)) return knexDriver(db);
  if (isPgLite(db)) return pgliteDriver(db);
  if (isPrisma(db)) return prismaDriver(db);
  if (isDrizzle(db)) return drizzleOn(db, db.$client);
  if (isKysely(db)) return kyselyDriver(db);
  if (isPg(db)) return pgDriver(db);
  throw new GatewayError(`postgresStore(db): db must be ${DATABASES}`);
}

/**
 * Drizzle on its driver's client (`$client`): a pg Pool's or Client's connections heard while
 * Drizzle holds them (`hearUnderOrm`), postgres.js's transactions run as the store runs its own.
 */
function drizzleOn(db: Parameters<typeof drizzleDriver>[0], client: unknown): SqlDriver {
  if (isPg(client)) hearUnderOrm(client);
  return drizzleDriver(db, { listen: listenOf(client), onPostgresJs: isPostgresJs(client) });
}

/** LISTEN through the client under an ORM (Drizzle's `$client`), when it is a driver the SDK knows. */
function listenOf(client: unknown): SqlDriver['listen'] {
  if (isPostgresJs(client)) return postgresJsDriver(client).listen;
  if (isPgLite(client)) return pgliteDriver(client).listen;
  if (isPg(client)) return pgDriver(client).listen;
  return undefined;
}

/** A transaction of the store and the driver's handle of it. */
interface Ambient {
  tx: SqlSession;
  handle: unknown;
  fence: Fence;
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

  /**
   * Runs one statement that writes nothing: in the transaction under way while it is open (a
   * one-connection database never waits on itself), else on the database. Unlike a write, a read
   * may come after its transaction ended: a wait a listener started and left running reads the
   * statuses the store records later, from whichever transaction started it.
   */
  read(text: string, params?: readonly unknown[]): Promise<Row[]> {
    const ambient = this.#ambient.getStore();
    const session = ambient?.fence.open ? ambient.tx : this.#driver;
    return session.query(text, params).catch((error: unknown) => Promise.reject(dbError(error)));
  }

  /**
   * Runs `fn` outside the store's transaction under way, and what it starts (a worker's or a
   * relay's loops, started from a listener) too: their work takes transactions of its own,
   * never the listener's, which ends long before them.
   */
  detached<T>(fn: () => T): T {
    return this.#ambient.exit(fn);
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
        const ambient = { tx: fence.session(tx), handle: fence.handle(handle), fence };
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

  /** Whether the driver can LISTEN (Prisma, Kysely and Knex expose no connection to listen on). */
  get canListen(): boolean {
    return this.#driver.listen !== undefined;
  }

  /** LISTEN on `channel`; resolves to the function that stops it. */
  listen(
    channel: string,
    onPayload: (payload: string) => void,
    onLost?: () => void,
    onResumed?: () => void,
  ): Promise<() => Promise<void>> {
    if (!this.#driver.listen) return Promise.reject(new GatewayError('this database cannot LISTEN'));
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
 * `sql.begin`, a PGlite transaction, or an ORM's: Prisma's `tx`, Drizzle's `tx`, Kysely's `trx`,
 * Knex's `trx`): pg and PGlite answer `query` with `{ rows }`, postgres.js has `unsafe`, each ORM
 * its raw query.
 */
export function sessionOf(handle: unknown): SqlSession {
  if (isPrismaSession(handle)) return prismaSession(handle);
  if (isKysely(handle)) return kyselySession(handle);
  if (isDrizzleSession(handle)) return drizzleSession(handle);
  if (isKnex(handle)) return knexSession(handle);
  const h = handle as {
    unsafe?: (text: string, params?: unknown[]) => Promise<Row[]>;
    query?: (text: string, params?: unknown[]) => Promise<{ rows: Row[] }>;
  } | null;
  if (typeof h?.unsafe === 'function')
    return { query: (text, params) => h.unsafe!(text, params as unknown[]) };
  if (typeof h?.query === 'function')
    return { query: async (text, params) => (await h.query!(text, params as unknown[])).rows };
  throw new GatewayError(
    "tx must be the transaction handle of a pg client, a postgres.js sql.begin, a PGlite transaction, or an ORM's (Prisma, Drizzle, Kysely, Knex)",
  );
}
