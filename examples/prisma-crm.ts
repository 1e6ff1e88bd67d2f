// Exactly once through Prisma (7, with @prisma/adapter-pg), on a real PostgreSQL and the fake
// gateway: the CRM's models are written through Prisma's own transaction, which the SDK's
// bookkeeping joins. A CRM request (contact_add) creates its contact once however often it comes;
// a customer's message is saved by a worker with the delivery; an order's "shipped" message is
// promised in the order's own `prisma.$transaction` and sent after the commit.
//
// `npm run prisma:generate` generates the client of examples/prisma/schema.prisma (offline), then
// `DATABASE_URL=postgres://… npx tsx examples/prisma-crm.ts` (`npm run examples` starts a private
// PostgreSQL for it when one is installed and DATABASE_URL is not set).
import { PrismaPg } from '@prisma/adapter-pg';
import { WebhookHandler } from 'messaging-gateway-sdk';
import { postgresStore } from 'messaging-gateway-sdk/postgres';
import { runCrmScenes } from './crm-scenes.js';
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
await runCrmScenes({
  store,
  hooks,
  // The order ships: its message is promised in the order's own transaction.
  shipOrder: (message) =>
    prisma.$transaction(async (tx) => {
      await tx.order.update({ where: { id: 'o-1' }, data: { shipped: true } });
      return store.outbox.send(tx, message);
    }),
  contacts: () => prisma.contact.count(),
  messages: async () => (await prisma.crmMessage.findMany({ select: { text: true } })).map((m) => m.text),
});
await prisma.$disconnect();
