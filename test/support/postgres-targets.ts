// The databases every PostgreSQL suite runs on: PGlite always; a real PostgreSQL through `pg`
// and through postgres.js when a server is installed (a missing server skips those with one line,
// and fails the run under REQUIRE_SYSTEM_TESTS=1). With `{ orms: true }`, the ORMs too: Drizzle
// and Kysely on PGlite, and Prisma, Drizzle (node-postgres and postgres.js), Kysely and Knex on
// the server.
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll } from 'vitest';
import { PGLITE_START_MS, pgliteOncePerFile } from './pglite-per-file.js';
import {
  POSTGRES_INSTALL,
  type PostgresServer,
  postgresBinDir,
  startPostgresServer,
} from './postgres-server.js';

export { PGLITE_START_MS };

/** The ORMs' targets. */
export type OrmTargetName =
  | 'prisma'
  | 'drizzle (pg)'
  | 'drizzle (postgres.js)'
  | 'drizzle (pglite)'
  | 'kysely'
  | 'kysely (pglite)'
  | 'knex';

/** One database to run a suite on. */
export interface PostgresTarget {
  name: 'pglite' | 'pg' | 'postgres.js' | OrmTargetName;
  /** A handle on the file's database (PGlite: one instance per file, closed after its tests). */
  open(): Promise<{ db: object; close(): Promise<void> }>;
  /** A connection string of the real server (undefined for PGlite). */
  url(): string | undefined;
  /** Restarts the real server (every connection dropped), down for `downMs`; absent for PGlite. */
  restart?(downMs?: number): Promise<void>;
}

let warned = false;

/** Whether the real-server targets run here. */
export function hasPostgresServer(): boolean {
  if (postgresBinDir()) return true;
  const line = `postgres not found: running the PostgreSQL suites on PGlite only (install: ${POSTGRES_INSTALL})`;
  if (process.env.REQUIRE_SYSTEM_TESTS === '1') throw new Error(`REQUIRE_SYSTEM_TESTS=1 but ${line}`);
  if (!warned) console.warn(`skip: ${line}`);
  warned = true;
  return false;
}

/** Whether `target` is one PGlite (one connection: transactions take turns, nothing is concurrent). */
export const onPGlite = (target: PostgresTarget): boolean => target.name.includes('pglite');

/** Whether `target`'s store can LISTEN (Prisma, Kysely and Knex expose no connection: it polls). */
export const canListen = (target: PostgresTarget): boolean =>
  !['prisma', 'kysely', 'knex'].some((orm) => target.name.startsWith(orm));

/**
 * The targets of this test file: registers the file's PGlite (started before its tests, closed
 * after; see `pgliteOncePerFile`) and a private server for the file when one is installed.
 * `orms` adds the ORMs' targets; `pglite: false` (for a file that runs on the server only)
 * starts no PGlite. @default { orms: false, pglite: true }
 */
export function postgresTargets(options: { orms?: boolean; pglite?: boolean } = {}): PostgresTarget[] {
  const lite = options.pglite === false ? [] : pgliteTargets(options.orms === true);
  const bin = postgresBinDir();
  if (!hasPostgresServer() || !bin) return lite;
  let server: PostgresServer | undefined;
  beforeAll(async () => {
    server = await startPostgresServer(bin);
  }, 120_000); // initdb and a start on a busy machine; it waits on the server's ready line
  afterAll(async () => server?.stop());
  const url = () => server?.url as string;
  const restart = async (downMs?: number) => server?.restart(downMs);
  return [
    ...lite.slice(0, 1),
    {
      name: 'pg',
      url,
      restart,
      async open() {
        const pool = new pg.Pool({ connectionString: url(), max: 20 });
        pool.on('error', () => {}); // an idle client's connection ended by the server's shutdown
        return { db: pool, close: () => pool.end() };
      },
    },
    {
      name: 'postgres.js',
      url,
      restart,
      async open() {
        const sql = postgres(url(), { max: 20, onnotice: () => {} });
        return { db: sql, close: () => sql.end({ timeout: 1 }) };
      },
    },
    ...lite.slice(1),
    ...(options.orms ? ormsOnServer(url) : []),
  ];
}

/** The file's PGlite, one instance shared by its tests (each in a schema of its own); with `orms`, Drizzle and Kysely on it. */
function pgliteTargets(orms: boolean): PostgresTarget[] {
  const file = pgliteOncePerFile();
  const pglite: PostgresTarget = {
    name: 'pglite',
    url: () => undefined,
    open: async () => ({ db: await file.get(), close: async () => {} }),
  };
  return [pglite, ...(orms ? ormsOnPGlite(pglite) : [])];
}

/** Drizzle and Kysely on the file's PGlite (their own PGlite drivers; Prisma and Knex have none). */
function ormsOnPGlite(pglite: PostgresTarget): PostgresTarget[] {
  const url = () => undefined;
  return [
    {
      name: 'drizzle (pglite)',
      url,
      async open() {
        const { drizzle } = await import('drizzle-orm/pglite');
        const { db } = await pglite.open();
        return { db: drizzle(db as PGlite), close: async () => {} };
      },
    },
    {
      name: 'kysely (pglite)',
      url,
      async open() {
        const { Kysely, PGliteDialect } = await import('kysely');
        const { db } = await pglite.open();
        // Not destroyed after: Kysely's destroy() closes the PGlite, which the file's tests share.
        return {
          db: new Kysely<unknown>({ dialect: new PGliteDialect({ pglite: db as PGlite }) }),
          close: async () => {},
        };
      },
    },
  ];
}

/** A pg Pool for an ORM on the server, as the pg target opens one. */
function pool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 20 });
  pool.on('error', () => {}); // an idle client's connection ended by the server's shutdown
  return pool;
}

/**
 * A pg Pool whose clients are heard while Kysely holds them, as the guide shows: Kysely lends the
 * connections itself and gives the store no way to hear them.
 */
function heardPool(url: string): pg.Pool {
  const heard = pool(url);
  heard.on('connect', (client) => client.on('error', () => {}));
  return heard;
}

/** Prisma (7, adapter-pg; the example's generated client), Drizzle, Kysely and Knex on the server. */
export function ormsOnServer(url: () => string): PostgresTarget[] {
  const target = (name: OrmTargetName, open: PostgresTarget['open']): PostgresTarget => ({ name, url, open });
  return [
    target('prisma', async () => {
      const { PrismaClient } = await import('../../examples/prisma/generated/client.js');
      const { PrismaPg } = await import('@prisma/adapter-pg');
      const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url(), max: 20 }) });
      return { db: prisma, close: () => prisma.$disconnect() };
    }),
    target('drizzle (pg)', async () => {
      const { drizzle } = await import('drizzle-orm/node-postgres');
      const client = pool(url());
      return { db: drizzle({ client }), close: () => client.end() };
    }),
    target('drizzle (postgres.js)', async () => {
      const { drizzle } = await import('drizzle-orm/postgres-js');
      const client = postgres(url(), { max: 20, onnotice: () => {} });
      return { db: drizzle({ client }), close: () => client.end({ timeout: 1 }) };
    }),
    target('kysely', async () => {
      const { Kysely, PostgresDialect } = await import('kysely');
      const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: heardPool(url()) }) });
      return { db, close: () => db.destroy() };
    }),
    target('knex', async () => {
      const { default: knex } = await import('knex');
      const db = knex({ client: 'pg', connection: url(), pool: { min: 0, max: 20 } });
      return { db, close: () => db.destroy() };
    }),
  ];
}

/** A schema of its own for each suite on the shared server. */
export function freshSchema(): string {
  return `t_${Math.random().toString(36).slice(2, 10)}`;
}

/** A store on a fresh handle of `target` (its own schema on the shared server), migrated. */
export async function openStore(target: PostgresTarget) {
  const { postgresStore } = await import('../../src/postgres/store.js');
  const { db, close } = await target.open();
  const schema = freshSchema();
  const store = postgresStore(db, { schema });
  await store.migrate();
  return { db, store, schema, close };
}

/** SQL through a transaction handle (or the database) the way a user's code writes through `tx`. */
export async function sqlOn(handle: unknown, text: string, params: unknown[] = []) {
  const { sessionOf, driverOf } = await import('../../src/postgres/driver.js');
  const isDatabase =
    typeof (handle as { begin?: unknown }).begin === 'function' ||
    'waitReady' in (handle as object) ||
    'totalCount' in (handle as object);
  return (isDatabase ? driverOf(handle) : sessionOf(handle)).query(text, params);
}

/** The server-side limits of the transaction `tx` runs in: its statement and idle time-outs. */
export async function serverLimitsOf(tx: unknown) {
  const [limits] = await sqlOn(
    tx,
    `SELECT current_setting('statement_timeout') AS statement,
            current_setting('idle_in_transaction_session_timeout') AS idle`,
  );
  return limits;
}

/**
 * Resolves once `check` holds (polled: workers and relays run on their own); rejects past `ms`, a
 * safety net for a busy machine (default 60 s).
 */
export async function until(check: () => Promise<boolean> | boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
