// Shared by examples/prisma-crm.ts and examples/drizzle-crm.ts: what stays the same whatever the
// ORM. A receiver on 127.0.0.1 subscribed at the fake gateway, the inbox worker and the outbox
// relay, then three scenes: a CRM request delivered twice, a customer's message, an order
// shipped. The examples give what is the ORM's: the store, the handler's listeners, the order's
// transaction, and the counts to print.
import { createServer } from 'node:http';
import {
  createNodeMiddleware,
  DeliveryTracker,
  GatewayClient,
  type WebhookHandler,
} from 'messaging-gateway-sdk';
import type { PostgresStore } from 'messaging-gateway-sdk/postgres';
import { buildWebhook, createFakeGateway } from 'messaging-gateway-sdk/testing';

/** What an example brings: its store, its handler (secret `demo-secret`), its own queries. */
export interface CrmExample {
  store: PostgresStore<object>;
  hooks: WebhookHandler;
  /** The order ships in the ORM's own transaction, its message promised there; the outbox row's id. */
  shipOrder(message: Parameters<PostgresStore['outbox']['send']>[1]): Promise<string>;
  contacts(): Promise<number>;
  messages(): Promise<string[]>;
}

/** Runs the three scenes against the fake gateway and prints what came of each. */
export async function runCrmScenes(example: CrmExample): Promise<void> {
  const { store, hooks } = example;
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
  console.log('contacts:', await example.contacts());

  // A customer writes: stored before the 200, saved by the worker.
  await gateway.simulate.inbound({ channel_id: 'ch-1', chat_id: '79001234567', text: 'Where is my order?' });

  // The order ships: its message is promised in the order's own transaction, sent after the commit.
  const rowId = await example.shipOrder({
    channel_id: 'ch-1',
    recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
    text: 'Your order has shipped',
  });
  for (let i = 0; i < 100 && (await store.outbox.get(rowId))?.status !== 'read'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  console.log('outbox row', rowId, (await store.outbox.get(rowId))?.status);
  console.log('messages saved by the worker:', await example.messages());

  await Promise.all([worker.stop(), relay.stop()]);
  tracker.detach();
  await store.deliveries.close();
  await gateway.close();
  server.close();
}
