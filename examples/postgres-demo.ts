// Exactly once in the CRM's own database, on PGlite (PostgreSQL in process) and the fake gateway:
// the inbox stores a customer's message before the 200 and a worker saves it inside the
// transaction that marks it done; CRM requests (contact_add) would be answered in a transaction
// keeping the contact and the reply together; an order's "shipped" message is written in the
// order's own transaction and sent by the relay after the commit, its row following the delivery
// statuses. `npm run demo:postgres`.
import { createServer } from 'node:http';
import { PGlite } from '@electric-sql/pglite';
import { createNodeMiddleware, DeliveryTracker, GatewayClient, WebhookHandler } from 'messaging-gateway-sdk';
import { postgresStore } from 'messaging-gateway-sdk/postgres';
import { createFakeGateway } from 'messaging-gateway-sdk/testing';

const db = await PGlite.create();
const store = postgresStore(db);
console.log('migrate:', await store.migrate(), '→ again:', await store.migrate());
await db.exec(`
  CREATE TABLE crm_messages (id serial PRIMARY KEY, chat_id text, text text);
  CREATE TABLE contacts (id serial PRIMARY KEY, name text);
  CREATE TABLE orders (id text PRIMARY KEY, shipped boolean NOT NULL DEFAULT false);
  INSERT INTO orders (id) VALUES ('o-1');`);

const hooks = new WebhookHandler({ secret: 'demo-secret', dedupe: store.dedupe, dispatch: store.inbox });
hooks.on('error', (error) => console.warn('error:', error.message));
hooks.on('message.add', async ({ data }, context) => {
  for (const m of data.filter((m) => m.direction === 'inbound')) {
    await store
      .tx(context)
      .query('INSERT INTO crm_messages (chat_id, text) VALUES ($1, $2)', [m.chat_id, m.text]);
  }
});
hooks.respond('crm_entities.contact_add', async ({ data }, context) => {
  const name = data[0]?.name ?? 'Customer';
  const { rows } = await store
    .tx(context)
    .query<{ id: number }>('INSERT INTO contacts (name) VALUES ($1) RETURNING id', [name]);
  return { id: String(rows[0]?.id), name };
});
const tracker = new DeliveryTracker({ store: store.deliveries }).attach(hooks);

const server = createServer(createNodeMiddleware(hooks)).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const { port } = server.address() as { port: number };
const gateway = await createFakeGateway({
  stepMs: 50,
  channels: [{ channel_id: 'ch-1', transport: 'whatsapp' }],
});
const client = new GatewayClient({ baseUrl: gateway.url, token: gateway.token });
await client.webhooks.ensure(`http://127.0.0.1:${port}/hooks?secret=demo-secret`, [
  'message.add',
  'message.status_update',
]);

const worker = store.inbox.work(hooks, { concurrency: 2 });
const relay = store.outbox.relay(client);

// A customer writes; the delivery is stored, then the worker saves it.
await gateway.simulate.inbound({ channel_id: 'ch-1', chat_id: '79001234567', text: 'Where is my order?' });

// The order ships: the message is promised in the same transaction.
const rowId = await db.transaction(async (tx) => {
  await tx.query(`UPDATE orders SET shipped = true WHERE id = 'o-1'`);
  return store.outbox.send(tx, {
    channel_id: 'ch-1',
    recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
    text: 'Your order has shipped',
  });
});
console.log('outbox row', rowId, (await store.outbox.get(rowId))?.status);

for (let i = 0; i < 100 && (await store.outbox.get(rowId))?.status !== 'read'; i++) {
  await new Promise((resolve) => setTimeout(resolve, 100));
}
const row = await store.outbox.get(rowId);
console.log('outbox row', rowId, row?.status, 'request', row?.request_id);
const saved = await db.query<{ text: string }>('SELECT text FROM crm_messages');
console.log(
  'messages saved by the worker:',
  saved.rows.map((r) => r.text),
);

await Promise.all([worker.stop(), relay.stop()]);
tracker.detach();
await store.deliveries.close();
await gateway.close();
server.close();
await db.close();
