// Exactly once through Drizzle, on PGlite (PostgreSQL in process: Drizzle's PGlite driver) and the
// fake gateway: the CRM's tables are written through Drizzle's own transaction, which the SDK's
// bookkeeping joins. A CRM request (contact_add) creates its contact once however often it comes;
// a customer's message is saved by a worker with the delivery; an order's "shipped" message is
// promised in the order's own `db.transaction` and sent after the commit. With node-postgres or
// postgres.js it is the same code on `drizzle({ client: pool })` or `drizzle({ client: sql })`.
// `npx tsx examples/drizzle-crm.ts`.
import { createServer } from 'node:http';
import { PGlite } from '@electric-sql/pglite';
import { count, eq } from 'drizzle-orm';
import { boolean, pgTable, serial, text } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/pglite';
import { createNodeMiddleware, DeliveryTracker, GatewayClient, WebhookHandler } from 'messaging-gateway-sdk';
import { postgresStore } from 'messaging-gateway-sdk/postgres';
import { buildWebhook, createFakeGateway } from 'messaging-gateway-sdk/testing';

const contacts = pgTable('contacts', { id: serial().primaryKey(), name: text().notNull() });
const orders = pgTable('orders', { id: text().primaryKey(), shipped: boolean().notNull().default(false) });
const crmMessages = pgTable('crm_messages', {
  id: serial().primaryKey(),
  chatId: text('chat_id').notNull(),
  text: text().notNull(),
});

const pglite = await PGlite.create();
const db = drizzle({ client: pglite });
const store = postgresStore(db);
// In an app: `npx messaging-gateway postgres sql` into the file of `drizzle-kit generate --custom`,
// beside the migrations drizzle-kit made for the tables. Here, from code:
await store.migrate();
await pglite.exec(`
  CREATE TABLE contacts (id serial PRIMARY KEY, name text NOT NULL);
  CREATE TABLE orders (id text PRIMARY KEY, shipped boolean NOT NULL DEFAULT false);
  CREATE TABLE crm_messages (id serial PRIMARY KEY, chat_id text NOT NULL, text text NOT NULL);`);
await db.insert(orders).values({ id: 'o-1' });

const hooks = new WebhookHandler({ secret: 'demo-secret', dedupe: store.dedupe, dispatch: store.inbox });
hooks.on('error', (error) => console.warn('error:', error.message));
hooks.respond('crm_entities.contact_add', async ({ data }, context) => {
  const tx = store.tx(context); // Drizzle's tx: the reply commits with the contact
  const [contact] = await tx
    .insert(contacts)
    .values({ name: data[0]?.name ?? 'Customer' })
    .returning();
  return { id: String(contact?.id), name: String(contact?.name) };
});
hooks.on('message.add', async ({ data }, context) => {
  for (const m of data.filter((m) => m.direction === 'inbound')) {
    await store
      .tx(context)
      .insert(crmMessages)
      .values({ chatId: m.chat_id ?? '', text: m.text ?? '' });
  }
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
  'crm_entities.contact_add',
]);
const worker = store.inbox.work(hooks, { concurrency: 2 });
const relay = store.outbox.relay(client);

// A CRM request, delivered twice (the service's retry): one contact.
const contactAdd = buildWebhook('crm_entities.contact_add', { data: [{ name: 'Ann' }] });
await gateway.simulate.deliver(contactAdd);
await gateway.simulate.deliver(contactAdd);
console.log('contacts:', (await db.select({ n: count() }).from(contacts))[0]?.n);

// A customer writes: stored before the 200, saved by the worker.
await gateway.simulate.inbound({ channel_id: 'ch-1', chat_id: '79001234567', text: 'Where is my order?' });

// The order ships: its message is promised in the order's own transaction.
const rowId = await db.transaction(async (tx) => {
  await tx.update(orders).set({ shipped: true }).where(eq(orders.id, 'o-1'));
  return store.outbox.send(tx, {
    channel_id: 'ch-1',
    recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
    text: 'Your order has shipped',
  });
});
for (let i = 0; i < 100 && (await store.outbox.get(rowId))?.status !== 'read'; i++) {
  await new Promise((resolve) => setTimeout(resolve, 100));
}
console.log('outbox row', rowId, (await store.outbox.get(rowId))?.status);
const saved = await db.select({ text: crmMessages.text }).from(crmMessages);
console.log(
  'messages saved by the worker:',
  saved.map((m) => m.text),
);

await Promise.all([worker.stop(), relay.stop()]);
tracker.detach();
await store.deliveries.close();
await gateway.close();
server.close();
await pglite.close();
