// Testing a CRM backend without the real service: the fake gateway of
// `messaging-gateway-sdk/testing`, a real webhook receiver, and DeliveryTracker, in vitest.
// Run it with `npx vitest run examples/testing.test.ts` (CI runs it with the other tests).
import { createServer, type Server } from 'node:http';
import {
  DeliveryTracker,
  GatewayClient,
  InternalServerError,
  MessageFailedError,
} from 'messaging-gateway-sdk';
import { buildWebhook, createFakeGateway, type FakeGateway } from 'messaging-gateway-sdk/testing';
import { createNodeMiddleware, WebhookHandler } from 'messaging-gateway-sdk/webhooks';
import { afterEach, beforeEach, expect, test } from 'vitest';

// The code under test: a tiny CRM service that notifies a customer and answers inbound messages.
function crmService(client: GatewayClient, hooks: WebhookHandler, channelId: string) {
  hooks.on('message.add', async ({ data }) => {
    for (const m of data.filter((m) => m.direction === 'inbound')) {
      const recipient = { chat_type: 'whatsapp', chat_id: m.recipient.chat_id ?? '' } as const;
      await client.messages.send({ channel_id: channelId, recipient, text: 'Thanks, we got it!' });
    }
  });
  return {
    notify: (phone: string, text: string) =>
      client.messages.send({
        channel_id: channelId,
        recipient: { chat_type: 'whatsapp', chat_id: phone },
        text,
      }),
  };
}

let gateway: FakeGateway;
let server: Server;
let hooks: WebhookHandler;
let client: GatewayClient;
let tracker: DeliveryTracker;

beforeEach(async () => {
  gateway = await createFakeGateway({ channels: [{ channel_id: 'channel-1' }] }); // real HTTP on 127.0.0.1, a free port
  hooks = new WebhookHandler({ secret: 'test-secret' });
  tracker = new DeliveryTracker().attach(hooks);
  server = createServer(createNodeMiddleware(hooks)).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  client = new GatewayClient({ baseUrl: gateway.url, token: gateway.token, apiKey: gateway.apiKey });
  await client.webhooks.ensure(`http://127.0.0.1:${port}/hooks?secret=test-secret`, [
    'message.add',
    'message.status_update',
  ]);
});

afterEach(async () => {
  await gateway.close();
  await hooks.drain();
  server.closeAllConnections();
  server.close();
});

test('a notification reaches the customer', async () => {
  const crm = crmService(client, hooks, 'channel-1');
  const { request_id } = await crm.notify('79001234567', 'Your order has shipped');
  await expect(tracker.waitFor(request_id, { until: 'delivered', timeoutMs: 5000 })).resolves.toMatchObject({
    status: 'delivered',
  });
  expect(gateway.requests.find((r) => r.path === '/v2/messages')?.body).toMatchObject({
    text: 'Your order has shipped',
  });
});

test('a notification to an unregistered number fails with bad_contact', async () => {
  const crm = crmService(client, hooks, 'channel-1');
  const { request_id } = await crm.notify('0001234567', 'Hello'); // numbers starting with 000 fail
  const error = await tracker.waitFor(request_id, { timeoutMs: 5000 }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(MessageFailedError);
  expect((error as MessageFailedError).reason).toBe('bad_contact');
});

test('an inbound message gets an answer', async () => {
  crmService(client, hooks, 'channel-1');
  await gateway.simulate.inbound({
    channel_id: 'channel-1',
    chat_id: '79001234567',
    text: 'Where is my order?',
  });
  await hooks.drain(); // the listener has sent its answer
  const answers = [...gateway.messages.values()].map((m) => m.body.text);
  expect(answers).toEqual(['Thanks, we got it!']);
});

test('a failing gateway surfaces as a typed error', async () => {
  const crm = crmService(client, hooks, 'channel-1');
  gateway.failNext('POST', '/v2/messages', { status: 503 });
  const error = await crm.notify('79001234567', 'Hi').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(InternalServerError);
  expect(error).toMatchObject({ status: 503, retryable: false }); // a POST may have been sent: not repeated
});

test('the receiver handles a delivery built by buildWebhook', async () => {
  const read: string[] = [];
  hooks.on('message.status_update', ({ data }) => void read.push(...data.map((s) => s.status)));
  const body = buildWebhook('message.status_update', { data: [{ request_id: 'r-1', status: 'read' }] });
  const answer = await hooks.handle({ method: 'POST', url: '/hooks?secret=test-secret', headers: {}, body });
  expect(answer.status).toBe(200);
  await hooks.drain();
  expect(read).toEqual(['read']);
});
