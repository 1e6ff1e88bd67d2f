// A connection PostgreSQL drops while the SDK holds it (DESIGN: What holds under a fleet's ordinary
// trouble): a terminated backend inside a responder's or a listener's transaction, a transaction
// the server ends for idling past idle_in_transaction_session_timeout, a server
// restart while a responder holds its transaction and a tracker listens. The attempt fails, is
// tried again, and the process lives (it runs in a child process of its own, so that a crash is
// seen as one), on a pg Pool (with and without pool.on('error')), a lone pg Client and postgres.js;
// and under the ORMs, which lend the connection themselves: Drizzle (on a pg Pool, a lone pg Client
// and postgres.js), Kysely (its pool set up as the guide shows), Prisma and Knex.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresStore } from '../../src/postgres/store.js';
import { freshSchema, type PostgresTarget, postgresTargets } from '../support/postgres-targets.js';

const CHILD = new URL('./processes/dropped-connection.ts', import.meta.url);

/** Runs the child for `driver` and `scenario`; its exit code, its figures and what it wrote to stderr. */
async function run(target: PostgresTarget, driver: string, scenario: string) {
  const url = target.url() as string;
  const schema = freshSchema();
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on('error', () => {}); // a connection ended by a restart while the pool ends
  await postgresStore(pool, { schema }).migrate();
  await pool.query(`CREATE TABLE "${schema}".contacts (id serial PRIMARY KEY, key text)`);
  await pool.query(`CREATE TABLE "${schema}".messages (id serial PRIMARY KEY, key text)`);
  await pool.end();
  const child = fork(CHILD, {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, DATABASE_URL: url, SCHEMA: schema, DRIVER: driver, SCENARIO: scenario },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let result: Record<string, unknown> | undefined;
  child.on('message', async (message: { restart?: boolean; result?: Record<string, unknown> }) => {
    if (message.result) result = message.result;
    if (message.restart) {
      await target.restart?.(500);
      child.send('go');
    }
  });
  const [code] = await once(child, 'exit');
  return { code, result, stderr: stderr.slice(0, 4_000) };
}

const lived = { code: 0, stderr: expect.not.stringContaining("Unhandled 'error' event") };

const targets = postgresTargets().filter((t) => t.name !== 'pglite');
for (const target of targets) {
  const drivers = target.name === 'pg' ? ['pg-pool', 'pg-pool-bare', 'pg-client'] : ['postgres.js'];
  describe(`a connection dropped under the SDK, ${target.name}`, () => {
    for (const driver of drivers) {
      const lone = driver === 'pg-client';
      it(`${driver}: a backend terminated inside a responder's transaction fails that attempt; the retry is processed`, async () => {
        const ran = await run(target, driver, 'responder');
        expect(ran).toMatchObject(lived);
        // A lone Client cannot connect again: the process lives, and every later call fails.
        expect(ran.result).toMatchObject(
          lone ? { first: 500, second: 500, contacts: 0 } : { first: 500, second: 200, contacts: 1 },
        );
      }, 60_000);

      it(`${driver}: a responder's transaction the server ends (idle_in_transaction_session_timeout) fails that attempt; the retry is processed`, async () => {
        const ran = await run(target, driver, 'idle');
        expect(ran).toMatchObject(lived);
        expect(ran.result).toMatchObject(
          lone ? { first: 500, second: 500, contacts: 0 } : { first: 500, second: 200, contacts: 1 },
        );
      }, 60_000);

      it(`${driver}: a backend terminated inside a listener's transaction fails that attempt; the retry is processed`, async () => {
        const ran = await run(target, driver, 'listener');
        expect(ran).toMatchObject(lived);
        expect(ran.result).toMatchObject({ stored: 200, messages: lone ? 0 : 1 });
      }, 60_000);
    }

    const guide = target.name === 'pg' ? 'pg-pool' : 'postgres.js';
    it(`${guide}: a server restart while a responder holds its transaction and a tracker listens`, async () => {
      const ran = await run(target, guide, 'restart');
      expect(ran).toMatchObject(lived);
      expect(ran.result).toMatchObject({ first: 500, second: 200, contacts: 1, heard: 'sent' });
    }, 120_000);
  });
}

const ORMS = ['drizzle (pg)', 'drizzle (pg-client)', 'drizzle (postgres.js)', 'kysely', 'prisma', 'knex'];
const server = targets.find((t) => t.name === 'pg');
describe.runIf(server)('a connection dropped under an ORM', () => {
  for (const orm of ORMS) {
    const lone = orm.includes('pg-client');
    it(`${orm}: a backend terminated inside a responder's transaction fails that attempt; the retry is processed`, async () => {
      const ran = await run(server as PostgresTarget, orm, 'responder');
      expect(ran).toMatchObject(lived);
      // A lone Client cannot connect again: the process lives, and every later call fails.
      expect(ran.result).toMatchObject(
        lone ? { first: 500, second: 500, contacts: 0 } : { first: 500, second: 200, contacts: 1 },
      );
    }, 60_000);

    it(`${orm}: a backend terminated inside a listener's transaction fails that attempt; the retry is processed`, async () => {
      const ran = await run(server as PostgresTarget, orm, 'listener');
      expect(ran).toMatchObject(lived);
      expect(ran.result).toMatchObject({ stored: 200, messages: lone ? 0 : 1 });
    }, 60_000);
  }
});
