// messaging-gateway-sdk/postgres on a private PostgreSQL (pg): the inbox end to end (stored →
// worker → a listener's insert → done) with 4 workers; what the responder's transaction adds to a
// CRM answer beside the in-memory dedupe; and 3 outbox relays sharing one redisRateLimiter against
// the fake gateway's 500 requests / 5 s: the most in any 5 s window, and the 429s. The inbox again
// through Prisma and through Drizzle (node-postgres), beside pg's figure.
import pg from 'pg';
import { generatePrismaClient } from '../scripts/prisma-generate.js';
import { GatewayClient } from '../src/client.js';
import { type PostgresStore, postgresStore } from '../src/postgres/store.js';
import { redisRateLimiter } from '../src/redis.js';
import { buildWebhook } from '../src/testing/build-webhook.js';
import { createFakeGateway } from '../src/testing/fake-gateway.js';
import { parseWebhook } from '../src/webhooks/decode/parse.js';
import { WebhookHandler } from '../src/webhooks/receive/handler.js';
import { postgresBinDir, startPostgresServer } from '../test/support/postgres-server.js';
import { connectClient } from '../test/support/redis-clients.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { median, timeEach, verdict } from './stats.js';

const until = async (check: () => Promise<boolean>) => {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
};

/** Stores `n` message.add deliveries in `store`'s inbox, decoded as the handler stores them. */
async function storeDeliveries(store: PostgresStore, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const body = buildWebhook('message.add', {
      meta: { idempotency_key: `k${i}` },
      data: [{ chat_id: `c${i}`, text: 'hi' }],
    } as never);
    await store.inbox.enqueue(parseWebhook(body as never), { key: `k${i}` });
  }
}

/** Throws unless the listener wrote a row for each of the `n` deliveries: the figure includes it. */
async function expectWritten(pool: pg.Pool, schema: string, n: number): Promise<void> {
  const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${schema}.messages`);
  if (rows[0].n !== n) throw new Error(`${schema}: the listener wrote ${rows[0].n} rows for ${n} deliveries`);
}

/** A listener's insert of `text` into the `messages` table, through its delivery's `tx`. */
type Insert = (tx: unknown, text: unknown) => Promise<unknown>;

/**
 * Stores `n` deliveries in the inbox of `schema` on `db` (pg, or an ORM's database), then times 4
 * workers running them all; with `insert`, each delivery's listener inserts a row through the
 * batch's transaction. `pool` reads the tables.
 */
async function drainInbox(
  pool: pg.Pool,
  db: object,
  schema: string,
  n: number,
  insert?: Insert,
): Promise<number> {
  const store = postgresStore(db, { schema });
  await store.migrate();
  await pool.query(`CREATE TABLE IF NOT EXISTS ${schema}.messages (id serial PRIMARY KEY, text text)`);
  await storeDeliveries(store, n);
  const hooks = new WebhookHandler({ secret: 's' });
  hooks.on('message.add', async ({ data }, { tx }) => void (await insert?.(tx, data[0]?.text)));
  const start = performance.now();
  const worker = store.inbox.work(hooks, { concurrency: 4, pollIntervalMs: 10 });
  const pending = `SELECT count(*)::int AS n FROM ${schema}.inbox WHERE state = 'pending'`;
  await until(async () => (await pool.query(pending)).rows[0].n === 0);
  const perSecond = n / ((performance.now() - start) / 1000);
  await worker.stop();
  await expectWritten(pool, schema, insert ? n : 0);
  return perSecond;
}

// The target and 0.3.0's figure are of deliveries whose listener writes nothing (0.3.0's bench
// stored the same raw bodies, which no listener hears today): the claims, batches and savepoints
// alone. The run with an insert per delivery is printed beside it, and is what the ORMs' runs are
// compared with.
async function inbox(pool: pg.Pool): Promise<{ line: string; ok: boolean }> {
  const insertInto =
    (schema: string): Insert =>
    (tx, text) =>
      (tx as pg.PoolClient).query(`INSERT INTO ${schema}.messages (text) VALUES ($1)`, [text]);
  // A first run of 500 warms the process up (the ORMs' runs below come after this one).
  await drainInbox(pool, pool, 'bench_inbox_warm', 500, insertInto('bench_inbox_warm'));
  const bare = await drainInbox(pool, pool, 'bench_inbox_bare', 4_000);
  const perSecond = await drainInbox(pool, pool, 'bench_inbox', 4_000, insertInto('bench_inbox'));
  const ok = bare >= 3000;
  return {
    line: verdict(
      'inbox end to end, owned claims, 4 workers',
      `${Math.round(bare)} deliveries/s with listeners writing nothing (0.3.0: 4,381/s); ${Math.round(perSecond)} deliveries/s with each inserting a row`,
      ok,
      '>= 3,000/s',
    ),
    ok,
  };
}

/** An ORM on the bench's server and the listener's insert through its own transaction. */
async function orm(name: 'Prisma' | 'Drizzle', url: string) {
  if (name === 'Prisma') {
    generatePrismaClient();
    const { PrismaClient } = await import('../examples/prisma/generated/client.js');
    const { PrismaPg } = await import('@prisma/adapter-pg');
    const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 20 }) });
    type Tx = { $executeRaw(s: TemplateStringsArray, ...v: unknown[]): Promise<number> };
    const insert: Insert = (tx, text) =>
      (tx as Tx).$executeRaw`INSERT INTO bench_inbox_prisma.messages (text) VALUES (${text})`;
    return { db: prisma as object, insert, close: () => prisma.$disconnect() };
  }
  const { drizzle } = await import('drizzle-orm/node-postgres');
  const { sql } = await import('drizzle-orm');
  const client = new pg.Pool({ connectionString: url, max: 20 });
  type Tx = { execute(q: unknown): Promise<unknown> };
  const insert: Insert = (tx, text) =>
    (tx as Tx).execute(sql`INSERT INTO bench_inbox_drizzle.messages (text) VALUES (${text})`);
  return { db: drizzle({ client }) as object, insert, close: () => client.end() };
}

/**
 * The inbox run of {@link inbox} through an ORM's own transaction (its raw query for the SDK's
 * statements, the listener's insert through the ORM's `tx`), printed beside pg's figure.
 */
async function inboxThrough(
  name: 'Prisma' | 'Drizzle',
  url: string,
  pool: pg.Pool,
  pgLine: string,
): Promise<{ line: string; ok: boolean }> {
  const { db, insert, close } = await orm(name, url);
  const schema = `bench_inbox_${name.toLowerCase()}`;
  try {
    const perSecond = await drainInbox(pool, db, schema, 4_000, insert);
    const beside = /(\d+) deliveries\/s with each inserting/.exec(pgLine)?.[1] ?? '?';
    const figure = `${Math.round(perSecond)} deliveries/s (pg ${beside}/s)`;
    return { line: verdict(`inbox through ${name}, 4 workers`, figure, true, 'beside pg'), ok: true };
  } finally {
    await close();
  }
}

async function responder(pool: pg.Pool): Promise<{ line: string; ok: boolean }> {
  const store = postgresStore(pool, { schema: 'bench_dedupe' });
  await store.migrate();
  let i = 0;
  const answer = (hooks: WebhookHandler) => async () => {
    const body = buildWebhook('crm_entities.contact_add', { meta: { idempotency_key: `r${i++}` } } as never);
    const res = await hooks.handle({
      method: 'POST',
      url: '/?secret=s',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`answered ${res.status}`);
  };
  const memory = new WebhookHandler({ secret: 's', dispatch: 'await' }).respond(
    'crm_entities.contact_add',
    () => ({ id: '1', name: 'A' }),
  );
  const inDb = new WebhookHandler({ secret: 's', dispatch: 'await', dedupe: store.dedupe }).respond(
    'crm_entities.contact_add',
    () => ({ id: '1', name: 'A' }),
  );
  await timeEach(100, answer(inDb));
  const base = median(await timeEach(1000, answer(memory))) / 1000; // timeEach counts µs
  const withDb = median(await timeEach(1000, answer(inDb))) / 1000;
  const added = withDb - base;
  return {
    line: verdict(
      'responder path, PostgreSQL dedupe',
      `+${added.toFixed(2)} ms (median ${withDb.toFixed(2)} vs ${base.toFixed(2)} ms)`,
      added <= 2,
      '<= +2 ms',
    ),
    ok: added <= 2,
  };
}

async function relays(pool: pg.Pool, redisUrl: string): Promise<{ line: string; ok: boolean }> {
  const store = postgresStore(pool, { schema: 'bench_outbox' });
  await store.migrate();
  const gateway = await createFakeGateway({
    autoStatuses: false,
    channels: [{ channel_id: 'ch-1', transport: 'whatsapp' }],
  });
  const { redis, close } = await connectClient('ioredis', redisUrl);
  const n = 1_500;
  const db = await pool.connect();
  await db.query('BEGIN');
  for (let i = 0; i < n; i++) {
    await store.outbox.send(db, {
      channel_id: 'ch-1',
      recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
      text: `o${i}`,
    });
  }
  await db.query('COMMIT');
  db.release();
  const started = Date.now();
  const times: number[] = [];
  const client = () =>
    new GatewayClient({
      baseUrl: gateway.url,
      token: gateway.token,
      logLevel: 'off',
      rateLimit: redisRateLimiter(redis, { key: 'bench-relay' }),
      fetch: async (input, init) => {
        times.push(Date.now());
        return fetch(input, init);
      },
    });
  const running = [1, 2, 3].map(() => store.outbox.relay(client(), { concurrency: 8, pollIntervalMs: 10 }));
  await until(
    async () =>
      (
        await pool.query(
          `SELECT count(*)::int AS n FROM bench_outbox.outbox WHERE status IN ('pending', 'sending')`,
        )
      ).rows[0].n === 0,
  );
  await Promise.all(running.map((r) => r.stop()));
  const refused = gateway.requests.filter((r) => r.status === 429).length;
  times.sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while ((times[i] as number) - (times[j] as number) >= 5_000) j++;
    most = Math.max(most, i - j + 1);
  }
  await gateway.close();
  await close();
  const ok = most <= 500 && refused === 0;
  return {
    line: verdict(
      '3 outbox relays, one redisRateLimiter',
      `${n} sends in ${((Date.now() - started) / 1000).toFixed(1)} s, at most ${most} in 5 s, ${refused} × 429`,
      ok,
      '<= 500 / 5 s, 0 × 429',
    ),
    ok,
  };
}

/** The PostgreSQL figures; a missing server is a missed target, not a skip. */
export async function postgresBench(): Promise<{ lines: string[]; ok: boolean }> {
  const bin = postgresBinDir();
  if (!bin)
    return { lines: ['postgres: no PostgreSQL server installed (apt-get install postgresql)'], ok: false };
  const server = await startPostgresServer(bin);
  const redisServer = await startRedisServer();
  const pool = new pg.Pool({ connectionString: server.url, max: 20 });
  pool.on('error', () => {});
  try {
    const results = [await inbox(pool), await responder(pool), await relays(pool, redisServer.url)];
    for (const name of ['Prisma', 'Drizzle'] as const)
      results.push(await inboxThrough(name, server.url, pool, results[0]?.line ?? ''));
    return { lines: results.map((r) => r.line), ok: results.every((r) => r.ok) };
  } finally {
    await pool.end();
    await redisServer.stop();
    await server.stop();
  }
}
