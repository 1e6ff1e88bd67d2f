// A CRM backend as a user runs it, for the crash tests: a receiver (contact_add answered by a
// responder that inserts the contact through `tx`; message.add stored in the inbox), a worker
// (message.add: the message and a promised send written through `tx`) and a relay, on a real
// PostgreSQL through pg (a Pool with pool.on('error'), as the guide shows) or postgres.js.
// CRASH_AT names the point where it SIGKILLs itself.
// Env: DATABASE_URL, DRIVER (pg | postgres.js), SCHEMA, PORT, GATEWAY_URL, GATEWAY_TOKEN, CRASH_AT;
// POISON_KEY: the message.add of that key SIGKILLs the process inside its listener on every run;
// MAX_ATTEMPTS: the worker's maxAttempts; TIMEOUT_MS: its timeoutMs (default 2 s: a delivery
// whose worker died is taken again when its claim's lease, timeoutMs plus a second, ends);
// LEASE_MS: the dedupe transaction's lease (the handler's is at least a minute);
// STORES=memory runs it as before this store existed (the memory dedupe, 'await', no transaction).
// A contact_add whose key starts with `h` hangs on its first attempt, one with `f` fails on it
// (the first attempt of the fleet: a row of `misbehaved` records it). SIGUSR2 holds every
// connection of its database handle for 2 s (the app's own work): its worker stalls.
import { createServer } from 'node:http';
import pg from 'pg';
import postgres from 'postgres';
import { GatewayClient } from '../../../src/client.js';
import { sessionOf } from '../../../src/postgres/driver.js';
import { postgresStore } from '../../../src/postgres/store.js';
import { createNodeMiddleware } from '../../../src/webhooks/adapters/node.js';
import type { DedupeStore } from '../../../src/webhooks/receive/dedupe-store.js';
import { WebhookHandler } from '../../../src/webhooks/receive/handler.js';

const env = process.env;
const crashAt = env.CRASH_AT ?? '';
/** Dies here, as a kill -9 would, when this run was started to die here. */
const crash = (point: string) => {
  if (crashAt === point) process.kill(process.pid, 'SIGKILL');
};

const url = env.DATABASE_URL as string;
const POOL_SIZE = 8;
const pool = env.DRIVER === 'pg' ? new pg.Pool({ connectionString: url, max: POOL_SIZE }) : undefined;
pool?.on('error', () => {}); // an idle connection the server ended: the pool opens another
// postgres.js fetches array types on each new connection in a promise it never handles: a
// connection ended at that moment would end the process. The store needs none of them.
const db = pool ?? postgres(url, { max: POOL_SIZE, onnotice: () => {}, fetch_types: false });
const store = postgresStore(db, { schema: env.SCHEMA });
const c = `"${store.schema}"`;
const sql = (tx: unknown, text: string, params: unknown[] = []) => sessionOf(tx ?? db).query(text, params);

/** The dedupe store with the lease cut to LEASE_MS, when given. */
function dedupeStore(): DedupeStore {
  const leaseMs = Number(env.LEASE_MS);
  if (!leaseMs) return store.dedupe;
  const d = store.dedupe;
  return {
    claim: (key, lease) => d.claim(key, lease),
    keepReply: (key, reply, ttlMs) => d.keepReply(key, reply, ttlMs),
    complete: (key, ttlMs, reply, token) => d.complete(key, ttlMs, reply, token),
    release: (key, token) => d.release(key, token),
    processInTransaction: (key, process, ttlMs) => d.processInTransaction(key, process, ttlMs, leaseMs),
  };
}

/** Whether this is the fleet's first attempt at `key` (recorded outside any transaction). */
const firstAttempt = async (key: string) =>
  (await sql(db, `INSERT INTO ${c}.misbehaved (key) VALUES ($1) ON CONFLICT DO NOTHING RETURNING key`, [key]))
    .length > 0;

const memory = env.STORES === 'memory';
const hooks = new WebhookHandler({
  secret: 'crash-secret',
  dedupe: memory ? true : dedupeStore(),
  dispatch: memory ? 'await' : store.inbox,
  replyTimeoutMs: 5_000,
});
hooks.on('error', () => {});
hooks.respond('crm_entities.contact_add', async (event, { tx }) => {
  const key = event.meta.idempotency_key ?? '';
  const [row] = await sql(tx, `INSERT INTO ${c}.contacts (key) VALUES ($1) RETURNING id::text AS id`, [key]);
  crash('responder-inside');
  if (/^[hf]/.test(key) && (await firstAttempt(key))) {
    if (key.startsWith('h')) await new Promise(() => {}); // hangs: cut when its lease ends
    throw new Error('the CRM refused it this time');
  }
  return { id: String(row?.id), name: 'Customer' };
});
hooks.on('message.add', async (event, { tx }) => {
  const key = event.meta.idempotency_key ?? '';
  await sql(tx, `INSERT INTO ${c}.messages (key) VALUES ($1)`, [key]);
  if (key === env.POISON_KEY) process.kill(process.pid, 'SIGKILL');
  await store.outbox.send(tx ?? db, {
    channel_id: 'ch-1',
    recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
    text: `order ${env.SCHEMA} ${key}`,
  });
  crash('listener-inside');
  // after the done-commit: the commit is a round trip or two after the listeners return
  if (crashAt === 'after-done-commit') setTimeout(() => crash('after-done-commit'), 30);
});

const gateway = new GatewayClient({ baseUrl: env.GATEWAY_URL, token: env.GATEWAY_TOKEN, logLevel: 'off' });
const client = {
  messages: {
    async send(params: Parameters<typeof gateway.messages.send>[0], options?: { signal?: AbortSignal }) {
      crash('relay-before-send');
      const sent = await gateway.messages.send(params, options);
      crash('relay-after-send');
      return sent;
    },
  },
};

const worker = store.inbox.work(hooks, {
  concurrency: 2,
  pollIntervalMs: 20,
  maxAttempts: Number(env.MAX_ATTEMPTS ?? 10),
  timeoutMs: Number(env.TIMEOUT_MS ?? 2_000),
  onError: () => {},
});
const relay = store.outbox.relay(client, {
  concurrency: 2,
  pollIntervalMs: 20,
  leaseMs: 1_000,
  onError: () => {},
});
const middleware = createNodeMiddleware(hooks);
// The answer is written after the delivery's transaction committed: dying here is the crash
// after the commit, before the service hears the answer.
const server = createServer((req, res) => {
  const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
  res.end = ((...args: unknown[]) => {
    crash('responder-after-commit');
    return end(...args);
  }) as typeof res.end;
  void middleware(req, res);
}).listen(Number(env.PORT), '127.0.0.1', () => console.log('ready'));
process.on('SIGUSR2', () => {
  const hold = () => sql(db, 'SELECT pg_sleep(2)').catch(() => undefined);
  void Promise.all(Array.from({ length: POOL_SIZE }, hold));
});
process.once('SIGTERM', async () => {
  server.close();
  await Promise.all([worker.stop(), relay.stop()]);
  await (pool ? pool.end() : (db as postgres.Sql).end({ timeout: 1 }));
  process.exit(0);
});
