// A CRM backend as a user runs it, for the crash tests: a receiver (contact_add answered by a
// responder that inserts the contact through `tx`; message.add stored in the inbox), a worker
// (message.add: the message and a promised send written through `tx`) and a relay, on a real
// PostgreSQL through pg or postgres.js. CRASH_AT names the point where it SIGKILLs itself.
// Env: DATABASE_URL, DRIVER (pg | postgres.js), SCHEMA, PORT, GATEWAY_URL, GATEWAY_TOKEN, CRASH_AT;
// POISON_KEY: the message.add of that key SIGKILLs the process inside its listener on every run;
// MAX_ATTEMPTS: the worker's maxAttempts;
// STORES=memory runs it as before this store existed (the memory dedupe, 'await', no transaction).
import { createServer } from 'node:http';
import pg from 'pg';
import postgres from 'postgres';
import { GatewayClient } from '../../../src/client.js';
import { sessionOf } from '../../../src/postgres/driver.js';
import { postgresStore } from '../../../src/postgres/store.js';
import { createNodeMiddleware } from '../../../src/webhooks/adapters/node.js';
import { WebhookHandler } from '../../../src/webhooks/receive/handler.js';

const env = process.env;
const crashAt = env.CRASH_AT ?? '';
/** Dies here, as a kill -9 would, when this run was started to die here. */
const crash = (point: string) => {
  if (crashAt === point) process.kill(process.pid, 'SIGKILL');
};

const url = env.DATABASE_URL as string;
const db =
  env.DRIVER === 'pg'
    ? new pg.Pool({ connectionString: url, max: 8 })
    : postgres(url, { max: 8, onnotice: () => {} });
const store = postgresStore(db, { schema: env.SCHEMA });
const c = `"${store.schema}"`;
const sql = (tx: unknown, text: string, params: unknown[] = []) => sessionOf(tx ?? db).query(text, params);

const memory = env.STORES === 'memory';
const hooks = new WebhookHandler({
  secret: 'crash-secret',
  dedupe: memory ? true : store.dedupe,
  dispatch: memory ? 'await' : store.inbox,
});
hooks.on('error', () => {});
hooks.respond('crm_entities.contact_add', async (event, { tx }) => {
  const key = event.meta.idempotency_key ?? '';
  const [row] = await sql(tx, `INSERT INTO ${c}.contacts (key) VALUES ($1) RETURNING id::text AS id`, [key]);
  crash('responder-inside');
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
process.once('SIGTERM', async () => {
  server.close();
  await Promise.all([worker.stop(), relay.stop()]);
  await ('end' in db ? db.end() : Promise.resolve());
  process.exit(0);
});
