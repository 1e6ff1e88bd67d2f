// The values a guide's block takes from the reader's own code, as scripts/check-readme.ts declares
// them for compiling (`client`, `secret`, `recipient`, a CRM, a logger, …), made real for running:
// loaded before the blocks of a process (test/guides/block-process.ts). Built from the
// environment the test gives (the fake gateway's address, the webhook secret, ids), so a block
// runs as it would in the reader's program. Every stand-in for the reader's own code (a CRM, a
// logger, a queue) prints what it was asked, so the test can check it.
import {
  DeliveryTracker,
  GatewayClient,
  type SendMessageParams,
  WebhookHandler,
} from 'messaging-gateway-sdk';
import { buildWebhook } from 'messaging-gateway-sdk/testing';
import { createNodeMiddleware } from 'messaging-gateway-sdk/webhooks';
import { listen } from '../support/servers.js';

const env = process.env;
const channel_id = env.CHANNEL_ID ?? 'channel-1';
const recipient: SendMessageParams['recipient'] = { chat_type: 'whatsapp', chat_id: '79001234567' };
const message: SendMessageParams = { channel_id, recipient, text: 'Your order has shipped' };
const client = env.GATEWAY_BASE_URL ? new GatewayClient() : undefined;

/** A delivery of two messages: an inbound one, and one the decoder rejects (no chat). */
const rawBody = JSON.stringify(
  buildWebhook(
    'message.add',
    {
      data: [
        { direction: 'inbound', text: 'Where is my order?', chat_id: '79001234567' },
        { chat_id: null as unknown as string },
      ],
    },
    { seed: 7 },
  ),
);

Object.assign(globalThis, {
  client,
  secret: env.WEBHOOK_SECRET,
  channel_id,
  channelId: channel_id,
  messageId: env.MESSAGE_ID,
  templateId: 'template-1',
  jobId: 'job-42',
  recipient,
  message,
  items: ['79001234567', '79001234568', '0001234567'].map((chat_id) => ({
    ...message,
    recipient: { chat_type: 'whatsapp', chat_id },
  })),
  rawBody,
  draft: { channel_id, recipient, text: '' },
  storedItem: JSON.parse(rawBody).data[0],
  log: {
    error: (...values: unknown[]) => console.error('log.error', ...values),
    warn: (...values: unknown[]) => console.log('log.warn', ...values),
  },
  crm: { createContact: async () => 'contact-1' },
  reply: async (m: { chat_id?: string }) => console.log('reply to', m.chat_id),
  deadLetters: { push: async (raw: unknown) => console.log('dead letter', JSON.stringify(raw)) },
  queue: {
    add: async (name: string) => console.log('queued', name),
    retryLater: (_data: unknown, delayMs: number) => console.log('retry later, in', delayMs, 'ms'),
  },
  worker: { process: () => {} },
});

// GUIDE_HOOKS=serve: `hooks` is a handler served on 127.0.0.1 and subscribed, with `tracker`
// attached, as the README's quick start sets them up; GUIDE_SEND_TO=<chat id> also sends `message`
// to that chat first, and `request_id` is its request id.
if (env.GUIDE_HOOKS === 'serve' && client) {
  const hooks = new WebhookHandler({ secret: env.WEBHOOK_SECRET });
  const tracker = new DeliveryTracker().attach(hooks);
  const { url } = await listen(createNodeMiddleware(hooks));
  const secret = encodeURIComponent(env.WEBHOOK_SECRET ?? '');
  await client.webhooks.ensure(`${url}/context-hooks?secret=${secret}`, [
    'message.add',
    'message.status_update',
  ]);
  Object.assign(globalThis, { hooks, tracker });
  if (env.GUIDE_SEND_TO) {
    const sent = await client.messages.send({
      ...message,
      recipient: { chat_type: 'whatsapp', chat_id: env.GUIDE_SEND_TO },
    });
    Object.assign(globalThis, { request_id: sent.request_id });
  }
}
