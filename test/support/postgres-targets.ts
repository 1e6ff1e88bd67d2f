// The databases every PostgreSQL suite runs on: PGlite always; a real PostgreSQL through `pg`
// and through postgres.js when a server is installed (a missing server skips those with one line,
// and fails the run under REQUIRE_SYSTEM_TESTS=1).
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll } from 'vitest';
import {
  POSTGRES_INSTALL,
  type PostgresServer,
  postgresBinDir,
  startPostgresServer,
} from './postgres-server.js';

/** One database to run a suite on. */
export interface PostgresTarget {
  name: 'pglite' | 'pg' | 'postgres.js';
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

/**
 * The targets of this test file: registers a private server for the file (started before its
 * tests, stopped after) when one is installed.
 */
export function postgresTargets(): PostgresTarget[] {
  // Starting a PGlite takes seconds: one per file, each suite in a schema of its own.
  let shared: Promise<PGlite> | undefined;
  afterAll(async () => (await shared)?.close());
  const pglite: PostgresTarget = {
    name: 'pglite',
    url: () => undefined,
    async open() {
      shared ??= PGlite.create();
      return { db: await shared, close: async () => {} };
    },
  };
  const bin = postgresBinDir();
  if (!hasPostgresServer() || !bin) return [pglite];
  let server: PostgresServer | undefined;
  beforeAll(async () => {
    server = await startPostgresServer(bin);
  }, 60_000);
  afterAll(async () => server?.stop());
  const url = () => server?.url as string;
  const restart = async (downMs?: number) => server?.restart(downMs);
  return [
    pglite,
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

/** Resolves once `check` holds (polled: workers and relays run on their own); rejects past `ms`. */
export async function until(check: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
