// A CRM backend whose PostgreSQL connections drop while the SDK holds them in a transaction, for
// dropped-connection.test.ts: run in a process of its own, so that an 'error' nobody hears ends
// it as it would end a server. It reports its figures over IPC and exits 0 when it lived.
// Env: DATABASE_URL, SCHEMA, DRIVER (pg-pool: a Pool with pool.on('error') as the guide shows;
// pg-pool-bare: without it; pg-client: a lone Client; postgres.js; or an ORM target of
// postgres-targets.ts: 'drizzle (pg)', 'drizzle (postgres.js)', 'kysely', 'prisma', 'knex'; or
// 'drizzle (pg-client)': Drizzle on a lone pg Client), SCENARIO:
// - responder: a responder under store.dedupe has its own backend terminated, then goes on;
// - idle: a responder's transaction sits idle past the server's idle_in_transaction_session_timeout
//   (the server ends the session), then goes on;
// - listener: an inbox listener has its own backend terminated, then goes on;
// - restart: the server restarts while a responder holds its transaction and a tracker listens.
import pg from 'pg';
import postgres from 'postgres';
import { postgresStore } from '../../../src/postgres/store.js';
import { buildWebhook } from '../../../src/testing/build-webhook.js';
import { DeliveryTracker } from '../../../src/tracking/delivery-tracker.js';
import { WebhookHandler } from '../../../src/webhooks/receive/handler.js';
import { ormsOnServer, sqlOn } from '../../support/postgres-targets.js';

const env = process.env;
const url = env.DATABASE_URL as string;
const driver = env.DRIVER as string;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The database of DRIVER and how to close it. */
async function open(): Promise<{ db: object; close(): Promise<void> }> {
  const orm = ormsOnServer(() => url).find((target) => target.name === driver);
  if (orm) return orm.open();
  if (driver === 'drizzle (pg-client)') {
    const { drizzle } = await import('drizzle-orm/node-postgres');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return { db: drizzle({ client }), close: () => client.end() };
  }
  const db = await openDriver();
  // postgres.js's end() waits for ever once a query failed while the server was down: a timeout.
  if (driver === 'postgres.js') return { db, close: () => (db as postgres.Sql).end({ timeout: 1 }) };
  return { db, close: () => (db as pg.Pool | pg.Client).end() };
}

async function openDriver(): Promise<object> {
  if (driver === 'postgres.js') return postgres(url, { max: 4, onnotice: () => {} });
  if (driver === 'pg-client') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return client;
  }
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  if (driver === 'pg-pool') pool.on('error', () => {}); // an idle client's connection that dropped
  return pool;
}

const { db, close } = await open();
const store = postgresStore(db, { schema: env.SCHEMA });
const s = `"${store.schema}"`;
/** One statement on a connection of its own (the test's, not the SDK's; fresh after a restart). */
async function admin(text: string, params: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}
const count = async (table: string) =>
  Number((await admin(`SELECT count(*)::int AS n FROM ${s}.${table}`))[0].n);
/** Terminates the backend of the transaction `tx` runs in. */
const terminate = async (tx: unknown) => {
  const [row] = await sqlOn(tx, 'SELECT pg_backend_pid() AS pid');
  await admin('SELECT pg_terminate_backend($1)', [row?.pid]);
  await sleep(300); // the connection is gone while the transaction is idle in the user's code
};
/** Leaves the transaction `tx` idle past a short idle_in_transaction_session_timeout: the server ends it. */
const idleTooLong = async (tx: unknown) => {
  await sqlOn(tx, `SET LOCAL idle_in_transaction_session_timeout = '200ms'`);
  await sleep(700);
};
/** Asks the test to restart the server; resolves once it is up again. */
let restarted: Promise<void> | undefined;
const restartServer = () => {
  restarted ??= new Promise<void>((resolve) => {
    process.once('message', () => resolve());
    process.send?.({ restart: true });
  });
  return restarted;
};

const hooks = new WebhookHandler({
  secret: 's',
  dedupe: store.dedupe,
  dispatch: env.SCENARIO === 'listener' ? store.inbox : 'await',
  replyTimeoutMs: 20_000,
});
const errors: string[] = [];
hooks.on('error', (error) => void errors.push(error.message));
let calls = 0;
hooks.respond('crm_entities.contact_add', async (_event, { tx }) => {
  if (++calls === 1) {
    if (env.SCENARIO === 'restart') await restartServer();
    else if (env.SCENARIO === 'idle') await idleTooLong(tx);
    else await terminate(tx);
  }
  await sqlOn(tx, `INSERT INTO ${s}.contacts (key) VALUES ('c')`);
  return { id: 'c', name: 'Customer' };
});
hooks.on('message.add', async (_event, { tx }) => {
  if (++calls === 1) await terminate(tx);
  await sqlOn(tx, `INSERT INTO ${s}.messages (key) VALUES ('m')`);
});
const post = async (webhook: unknown) =>
  (
    await hooks.handle({
      method: 'POST',
      url: '/?secret=s',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(webhook),
    })
  ).status;
const contact = buildWebhook('crm_entities.contact_add', { meta: { idempotency_key: 'c1' } } as never);

const result: Record<string, unknown> = { driver };
if (env.SCENARIO === 'listener') {
  const message = buildWebhook('message.add', {
    meta: { idempotency_key: 'm1' },
    data: [{ chat_id: 'chat-1', text: 'hi' }],
  } as never);
  result.stored = await post(message);
  const worker = store.inbox.work(hooks, { pollIntervalMs: 20, onError: () => {} });
  const tries = driver.includes('pg-client') ? 20 : 200; // a lone Client stays broken: nothing to wait for
  for (let i = 0; i < tries && (await count('messages')) === 0; i++) {
    await admin(`UPDATE ${s}.inbox SET run_at = now()`); // the backoff after the failed attempt
    await sleep(50);
  }
  await worker.stop();
  result.messages = await count('messages');
} else if (env.SCENARIO === 'responder' || env.SCENARIO === 'idle') {
  result.first = await post(contact);
  result.second = await post(contact);
  result.contacts = await count('contacts');
} else {
  /** Records a status of r-1 as another instance would (the test's own connection). */
  const record = async (status: string) => {
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    await postgresStore(other, { schema: env.SCHEMA }).deliveries.record({
      request_id: 'r-1',
      status,
    } as never);
    await other.end();
  };
  await record('accepted');
  const tracker = new DeliveryTracker({ store: store.deliveries });
  const waiting = tracker.waitFor('r-1', { until: 'sent', timeoutMs: 60_000 }).then(
    (update) => update.status,
    (error: Error) => `${error.name}: ${error.message}`,
  );
  while (tracker.statusOf('r-1') !== 'accepted') await sleep(20); // listening, and read once
  const worker = store.inbox.work(hooks, { pollIntervalMs: 20, onError: () => {} }); // polls throughout
  result.first = await post(contact); // answered once its connection dropped, or once it went on
  await restarted;
  result.second = await post(contact);
  result.contacts = await count('contacts');
  await record('sent'); // while the tracker's LISTEN may not be back yet
  result.heard = await waiting;
  await worker.stop();
  await store.deliveries.close();
}
result.errors = errors;
await close();
process.send?.({ result });
process.disconnect?.();
