// A worker's claim reads the oldest pending deliveries off the inbox_pending index, however many
// are pending, also on a new inbox whose table has no statistics yet: a claim that sorted every
// pending row instead costs as much as the backlog, for each batch of ten. The plans are
// PostgreSQL's own (auto_explain, sent to the client as notices), on a real server: PGlite's
// planner is the same, but it cannot load auto_explain. Autovacuum is off for the inbox, which
// must get no statistics before the claims run.
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresStore } from '../../src/postgres/store.js';
import { parseWebhook } from '../../src/webhooks/decode/parse.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { freshSchema, postgresTargets, until } from '../support/postgres-targets.js';
import { messageAdd } from './inbox-suite.js';

/** A pool whose connections report the plan of every statement they run. */
function explainingPool(url: string) {
  const plans: string[] = [];
  const pool = new pg.Pool({
    connectionString: url,
    max: 8,
    options:
      '-c session_preload_libraries=auto_explain -c auto_explain.log_min_duration=0 -c client_min_messages=log',
  });
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('notice', (notice) => plans.push(String(notice.message))));
  return { pool, plans };
}

const server = postgresTargets({ pglite: false }).find((target) => target.name === 'pg');

describe.runIf(server)('the inbox claim plan', () => {
  const closing: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0)) await close();
  });

  async function drain(backlog: number) {
    const { pool, plans } = explainingPool(server?.url() as string);
    closing.push(() => pool.end());
    const schema = freshSchema();
    const store = postgresStore(pool, { schema });
    await store.migrate();
    await pool.query(`ALTER TABLE ${schema}.inbox SET (autovacuum_enabled = off)`);
    for (let i = 0; i < backlog; i++)
      await store.inbox.enqueue(parseWebhook(messageAdd(`k${i}`, `c${i}`, 'hi')), { key: `b${i}` });
    const hooks = new WebhookHandler({ secret: 's' });
    const worker = store.inbox.work(hooks, { concurrency: 2, pollIntervalMs: 5 });
    closing.unshift(() => worker.stop());
    const pending = `SELECT count(*)::int AS n FROM ${schema}.inbox WHERE state = 'pending'`;
    await until(async () => (await pool.query(pending)).rows[0].n === 0);
    return plans.filter((plan) => plan.includes('WITH picked'));
  }

  it('reads inbox_pending in order on a new inbox with a backlog', async () => {
    const claims = await drain(1_500);
    expect(claims.length).toBeGreaterThan(10);
    const sorting = claims.filter((plan) => /\bSort\b/.test(plan));
    expect(sorting.slice(0, 1), `${sorting.length} of ${claims.length} claims sorted`).toEqual([]);
    for (const plan of claims) expect(plan).toContain('Index Scan using inbox_pending');
  }, 120_000);
});
