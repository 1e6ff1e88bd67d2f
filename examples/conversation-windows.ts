// Conversation windows: text to a wapi chat whose customer has not written in 24 hours is refused
// before it leaves (the service would accept it, then fail it); a template goes, and the
// customer's answer opens the window. Runs against the package's fake gateway, which keeps the
// same windows, with a local receiver for its deliveries.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ConversationWindowError,
  ConversationWindows,
  createNodeMiddleware,
  GatewayClient,
  WebhookHandler,
} from 'messaging-gateway-sdk';
import { createFakeGateway } from 'messaging-gateway-sdk/testing';

const channel_id = '4b9f1d2e-7c3a-4e5f-8a6b-1c2d3e4f5a6b';
const gateway = await createFakeGateway({ channels: [{ channel_id, transport: 'wapi', name: 'Business' }] });
const hooks = new WebhookHandler({ secret: 'example-secret' });
// heardSince: 0 — this store hears every message the fake sends from its first one. Left out,
// a chat nothing is known of is let through until the windows have listened for a whole window.
const windows = new ConversationWindows({ heardSince: 0 }).attach(hooks);
const receiver = createServer(createNodeMiddleware(hooks)).listen(0, '127.0.0.1');
await once(receiver, 'listening');
const { port } = receiver.address() as AddressInfo;

try {
  const client = new GatewayClient({ baseUrl: gateway.url, token: gateway.token, windows });
  await client.webhooks.ensure(`http://127.0.0.1:${port}/hooks?secret=example-secret`, ['message.add']);
  await client.channels.list(); // the windows learn each channel's transport and tier

  const recipient = { chat_type: 'whatsapp', chat_id: '79001234567' } as const;
  try {
    await client.messages.send({ channel_id, recipient, text: 'Your order #1042 has shipped' });
  } catch (error) {
    if (!(error instanceof ConversationWindowError)) throw error;
    console.log(`refused before it left (${error.code}): ${error.message}`);
    const template = { id: '6f1c2a9e-3b7d-4c1e-9a51-2f8d0e4b7c13', values: ['#1042'] };
    const { request_id } = await client.messages.send({ channel_id, recipient, template });
    console.log(`template sent instead: request_id=${request_id}`);
  }

  await gateway.simulate.inbound({
    channel_id,
    chat_id: recipient.chat_id,
    text: 'Thanks, when does it arrive?',
  });
  await hooks.drain(); // the handler's listeners, the windows among them, have run
  const { open, closesAt = Date.now() } = await windows.get(channel_id, recipient.chat_id);
  console.log(`window open: ${open}, closes in ${Math.round((closesAt - Date.now()) / 3_600_000)} h`);
  const { request_id } = await client.messages.send({ channel_id, recipient, text: 'Tomorrow before noon' });
  console.log(`text sent: request_id=${request_id}`);
  const { count, cap, tier } = await windows.conversationsToday(channel_id);
  console.log(`conversations started today: ${count} of ${cap} (${tier})`);
} finally {
  receiver.close();
  await gateway.close();
}
