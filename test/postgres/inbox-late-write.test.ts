// A listener that outlives the worker's timeoutMs and then writes through its `tx`: the batch was
// rolled back and the delivery is tried again, so that late write must never commit (else the
// CRM stores the message twice). On PGlite, a pg Pool, a lone pg Client and postgres.js (and in
// a postgres.js savepoint, whose `sql` is the listener's too).
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresStore } from '../../src/postgres/store.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { freshSchema, PGLITE_START_MS, postgresTargets, sqlOn, until } from '../support/postgres-targets.js';
import { messageAdd, post } from './inbox-suite.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The handle kinds to try: each target, and a lone pg Client on the real server. */
function handles() {
  const targets = postgresTargets();
  const list = targets.map((t) => ({ name: t.name as string, open: () => t.open() }));
  const pgTarget = targets.find((t) => t.name === 'pg');
  if (pgTarget) {
    list.push({
      name: 'lone pg Client',
      open: async () => {
        const client = new pg.Client({ connectionString: pgTarget.url() });
        client.on('error', () => {});
        await client.connect();
        return { db: client, close: () => client.end() };
      },
    });
  }
  return list;
}

for (const target of handles()) {
  describe(`a late write through tx on ${target.name}`, () => {
    for (const mode of ['during a statement', 'after a pause', 'in a savepoint'] as const) {
      it.skipIf(mode === 'in a savepoint' && target.name !== 'postgres.js')(
        `never commits after its delivery timed out (${mode})`,
        async () => {
          const { db, close } = await target.open();
          const schema = freshSchema();
          const store = postgresStore(db, { schema });
          await store.migrate();
          const messages = `"${schema}".messages`;
          await sqlOn(db, `CREATE TABLE ${messages} (id serial PRIMARY KEY, text text)`);
          const hooks = new WebhookHandler({ secret: 'hook-secret', dispatch: store.inbox });
          const errors: unknown[] = [];
          hooks.on('error', (e) => void errors.push(e));
          let calls = 0;
          let lateEnded: Promise<unknown> = Promise.resolve();
          hooks.on('message.add', async ({ data }, context) => {
            const tx = store.tx(context);
            calls++;
            if (calls === 1) {
              const late = (async () => {
                const insert = (sql: unknown) =>
                  sqlOn(sql, `INSERT INTO ${messages} (text) VALUES ($1)`, ['late']);
                if (mode === 'in a savepoint') {
                  type Savepoint = { savepoint(fn: (sql: unknown) => Promise<unknown>): Promise<unknown> };
                  // Its write's outcome: the savepoint never settles once its delivery ended.
                  return new Promise((written, refused) => {
                    void (tx as Savepoint).savepoint(async (sql) => {
                      await sleep(500);
                      await insert(sql).then(written, (error: unknown) => {
                        refused(error);
                        throw error;
                      });
                    });
                  });
                }
                if (mode === 'during a statement') await sqlOn(tx, 'SELECT pg_sleep(0.5)');
                else await sleep(500);
                await insert(tx);
              })();
              lateEnded = late.catch(() => undefined);
              return late;
            }
            await sqlOn(tx, `INSERT INTO ${messages} (text) VALUES ($1)`, [data[0]?.text]);
          });
          await hooks.handle(post(messageAdd('k1', 'c1', 'on time')));
          const worker = store.inbox.work(hooks, { pollIntervalMs: 10, timeoutMs: 150 });
          try {
            await until(() => calls >= 1);
            await lateEnded;
            await sqlOn(db, `UPDATE "${schema}".inbox SET run_at = now()`);
            await until(async () => (await store.inbox.get('1'))?.state === 'done');
            await sleep(200);
          } finally {
            await worker.stop();
          }
          const rows = (await sqlOn(db, `SELECT text FROM ${messages} ORDER BY id`)).map((r) => r.text);
          await close();
          const retried = calls > 1;
          // The first attempt cut (at timeoutMs by the worker, or by the server's statement_timeout):
          // only the retry's write, never the late one. On PGlite, pg_sleep blocks the whole
          // process, so nothing can cut that statement: the first attempt ends in time and its
          // write is the delivery's one.
          expect({ rows, retried }).toEqual(
            retried ? { rows: ['on time'], retried } : { rows: ['late'], retried },
          );
          if (target.name !== 'pglite' || mode === 'after a pause') expect(retried).toBe(true);
          // The failed first attempt was reported (timed out, or its statement cut); none otherwise.
          expect(errors.length > 0).toBe(retried);
        },
        PGLITE_START_MS + 30_000, // the first test of a target opens it: PGlite starts slowly on a busy machine
      );
    }
  });
}
