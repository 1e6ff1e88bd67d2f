// Exactly once through Prisma (7, with @prisma/adapter-pg), on a real PostgreSQL and the fake
// gateway: the CRM's models are written through Prisma's own transaction, which the SDK's
// bookkeeping joins. A CRM request (contact_add) creates its contact once however often it comes;
// a customer's message is saved by a worker with the delivery; an order's "shipped" message is
// promised in the order's own `prisma.$transaction` and sent after the commit.
//
// `npm run prisma:generate` generates the client of examples/prisma/schema.prisma (offline), then
// `DATABASE_URL=postgres://… npx tsx examples/prisma-crm.ts` (`npm run examples` starts a private
// PostgreSQL for it when one is installed and DATABASE_URL is not set).
import { createServer } from 'node:http';
import { PrismaPg } from '@prisma/adapter-pg';
import { createNodeMiddleware, DeliveryTracker, GatewayClient, WebhookHandler } from 'messaging-gateway-sdk';
import { postgresStore } from 'messaging-gateway-sdk/postgres';
import { buildWebhook, createFakeGateway } from 'messaging-gateway-sdk/testing';
import { PrismaClient } from './prisma/generated/client.js';

const url = process.env.DATABASE_URL;
if (!url) {
  console.log('skip: set DATABASE_URL to a PostgreSQL database');
  process.exit(0);
}

const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) });
const store = postgresStore(prisma, { schema: 'gateway_prisma_example' });
// In an app: `npx messaging-gateway postgres sql` into a migration of `prisma migrate dev
// --create-only`, beside the migration Prisma made for the models. Here, from code:
await store.migrate();
await prisma.$executeRawUnsafe(
  'CREATE TABLE IF NOT EXISTS contacts (id serial PRIMARY KEY, name text NOT NULL)',
);
await prisma.$executeRawUnsafe(
  'CREATE TABLE IF NOT EXISTS orders (id text PRIMARY KEY, shipped boolean NOT NULL DEFAULT false)',
);
await prisma.$executeRawUnsafe(
  'CREATE TABLE IF NOT EXISTS crm_messages (id serial PRIMARY KEY, chat_id text NOT NULL, text text NOT NULL)',
);
await prisma.contact.deleteMany(); // the example starts afresh each run
await prisma.crmMessage.deleteMany();
await prisma.order.upsert({ where: { id: 'o-1' }, create: { id: 'o-1' }, update: { shipped: false } });

const hooks = new WebhookHandler({ secret: 'demo-secret', dedupe: store.dedupe, dispatch: store.inbox });
hooks.on('error', (error) => console.warn('error:', error.message));
hooks.respond('crm_entities.contact_add', async ({ data }, context) => {
  const tx = store.tx(context); // Prisma.TransactionClient: the reply commits with the contact
  const contact = await tx.contact.create({ data: { name: data[0]?.name ?? 'Customer' } });
  return { id: String(contact.id), name: contact.name };
});
hooks.on('message.add', async ({ data }, context) => {
  for (const m of data.filter((m) => m.direction === 'inbound')) {
    await store.tx(context).crmMessage.create({ data: { chatId: m.chat_id ?? '', text: m.text ?? '' } });
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
console.log('contacts:', await prisma.contact.count());

// A customer writes: stored before the 200, saved by the worker.
await gateway.simulate.inbound({ channel_id: 'ch-1', chat_id: '79001234567', text: 'Where is my order?' });

// The order ships: its message is promised in the order's own transaction.
const rowId = await prisma.$transaction(async (tx) => {
  await tx.order.update({ where: { id: 'o-1' }, data: { shipped: true } });
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
const saved = await prisma.crmMessage.findMany({ select: { text: true } });
console.log(
  'messages saved by the worker:',
  saved.map((m) => m.text),
);

await Promise.all([worker.stop(), relay.stop()]);
tracker.detach();
await store.deliveries.close();
await gateway.close();
server.close();
await prisma.$disconnect();
