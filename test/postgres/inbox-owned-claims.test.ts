// A claim is owned (DESIGN: What holds under a fleet's ordinary trouble): instance A claims the
// deliveries, then its pool is busy with the app's own work, so its batch starts 1.5-2.5 s after
// its claim; instance B runs beside it on its own pool. Whether A's lease holds (B leaves the
// deliveries alone) or runs out (B takes them over, and A's late batch changes nothing), each
// delivery is written once and ends done. A real PostgreSQL through pg and postgres.js (PGlite is
// one connection in one process: a batch cannot start late while another worker claims).
import pg from 'pg';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { type PostgresStore, postgresStore } from '../../src/postgres/store.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import {
  freshSchema,
  type PostgresTarget,
  postgresTargets,
  sqlOn,
  until,
} from '../support/postgres-targets.js';
import { messageAdd, post } from './inbox-suite.js';

/**
 * A database handle of one connection whose first claim statement is followed, on that
 * connection, by `SELECT pg_sleep(stallS)` (the app's traffic): what the worker runs next waits.
 */
function stalledAfterClaim(target: PostgresTarget, stallS: number) {
  const url = target.url() as string;
  const sleep = `SELECT pg_sleep(${stallS})`;
  let stalled: Promise<unknown> | undefined;
  let armed = false;
  const arm = () => {
    armed = true;
  };
  if (target.name === 'pg') {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    // 'release' is emitted before the pool lends the connection again: the app's query queued
    // here goes before the batch, which asks for a connection only once the claim resolved.
    pool.on('release', () => {
      if (!armed) return;
      armed = false;
      stalled = pool.query(sleep);
    });
    return { db: pool, arm, stalled: () => stalled, close: () => pool.end() };
  }
  const sql = postgres(url, {
    max: 1,
    onnotice: () => {},
    debug: (_connection, query) => {
      if (!armed || !query.includes('WITH picked')) return;
      armed = false;
      stalled = sql.unsafe(sleep).execute(); // queued on the one connection, behind the claim
    },
  });
  return { db: sql, arm, stalled: () => stalled, close: () => sql.end({ timeout: 1 }) };
}

for (const target of postgresTargets().filter((t) => t.name !== 'pglite')) {
  describe(`owned claims on ${target.name}`, () => {
    const closing: (() => Promise<unknown>)[] = [];
    afterEach(async () => {
      for (const close of closing.splice(0)) await close();
    });

    /** Instance A (stalled after its claim) and B on one schema; each delivery's rows written. */
    async function twoInstances(stallS: number, timeoutMsOfA?: number) {
      const schema = freshSchema();
      const a = stalledAfterClaim(target, stallS);
      const b = await target.open();
      closing.push(a.close, b.close);
      const storeA = postgresStore(a.db, { schema });
      const storeB = postgresStore(b.db, { schema });
      await storeB.migrate();
      await sqlOn(b.db, `CREATE TABLE "${schema}".messages (id serial PRIMARY KEY, text text, worker text)`);
      const handler = (name: string, store: Pick<PostgresStore, 'inbox'>) => {
        const hooks = new WebhookHandler({ secret: 'hook-secret', dispatch: store.inbox });
        hooks.on('message.add', async ({ data }, { tx }) => {
          await sqlOn(tx, `INSERT INTO "${schema}".messages (text, worker) VALUES ($1, $2)`, [
            data[0]?.text,
            name,
          ]);
        });
        return hooks;
      };
      const hooksA = handler('A', storeA);
      const hooksB = handler('B', storeB);
      const keys = ['m0', 'm1', 'm2', 'm3', 'm4'];
      for (const key of keys)
        expect((await hooksB.handle(post(messageAdd(key, `chat-${key}`, key)))).status).toBe(200);
      a.arm();
      const workerA = storeA.inbox.work(hooksA, { pollIntervalMs: 20, timeoutMs: timeoutMsOfA });
      await until(() => a.stalled() !== undefined); // A's pool is busy
      // postgres.js queues the app's query as the claim is sent: B starts once A's claim committed.
      const claimed = `SELECT count(*)::int AS n FROM "${schema}".inbox WHERE locked_by IS NOT NULL`;
      await until(async () => (await sqlOn(b.db, claimed))[0]?.n === keys.length);
      const workerB = storeB.inbox.work(hooksB, { pollIntervalMs: 20 });
      const rows = () => sqlOn(b.db, `SELECT key, state, attempts FROM "${schema}".inbox ORDER BY key`);
      await until(async () => (await rows()).every((row) => row.state === 'done'));
      await a.stalled();
      await workerA.stop(); // A's batch, late, has run
      await workerB.stop();
      const written = await sqlOn(b.db, `SELECT text, worker FROM "${schema}".messages ORDER BY text`);
      return { keys, rows: await rows(), written };
    }

    it('a batch starting 1.5 s after its claim (a busy pool) runs each delivery once: its lease holds', async () => {
      const { keys, rows, written } = await twoInstances(1.5);
      expect(written.map((r) => r.text)).toEqual(keys);
      expect(written.every((r) => r.worker === 'A')).toBe(true); // B never took them
      expect(rows.map((r) => [r.state, r.attempts])).toEqual(keys.map(() => ['done', 1]));
    }, 60_000);

    it('a worker stalled past its lease: another takes the deliveries over, and the late batch changes nothing', async () => {
      // A's lease: timeoutMs 500 plus a second; its batch starts 2.5 s after its claim.
      const { keys, rows, written } = await twoInstances(2.5, 500);
      expect(written.map((r) => r.text)).toEqual(keys);
      expect(rows.every((r) => r.state === 'done')).toBe(true);
    }, 60_000);
  });
}
