// Exactly once through Drizzle, on PGlite (PostgreSQL in process: Drizzle's PGlite driver) and the
// fake gateway: the CRM's tables are written through Drizzle's own transaction, which the SDK's
// bookkeeping joins. A CRM request (contact_add) creates its contact once however often it comes;
// a customer's message is saved by a worker with the delivery; an order's "shipped" message is
// promised in the order's own `db.transaction` and sent after the commit. With node-postgres or
// postgres.js it is the same code on `drizzle({ client: pool })` or `drizzle({ client: sql })`.
// `npx tsx examples/drizzle-crm.ts`.
import { PGlite } from '@electric-sql/pglite';
import { count, eq } from 'drizzle-orm';
import { boolean, pgTable, serial, text } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/pglite';
import { WebhookHandler } from 'messaging-gateway-sdk';
import { postgresStore } from 'messaging-gateway-sdk/postgres';
import { runCrmScenes } from './crm-scenes.js';

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
await runCrmScenes({
  store,
  hooks,
  // The order ships: its message is promised in the order's own transaction.
  shipOrder: (message) =>
    db.transaction(async (tx) => {
      await tx.update(orders).set({ shipped: true }).where(eq(orders.id, 'o-1'));
      return store.outbox.send(tx, message);
    }),
  contacts: async () => (await db.select({ n: count() }).from(contacts))[0]?.n ?? 0,
  messages: async () => (await db.select({ text: crmMessages.text }).from(crmMessages)).map((m) => m.text),
});
await pglite.close();
