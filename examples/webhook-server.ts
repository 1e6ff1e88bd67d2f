// An Express server that receives the gateway's webhooks: logs every event kind with its narrowed
// fields, answers the CRM requests, and protects itself with a secret (v2 and v3) and the crmKey
// (v3). With WEBHOOK_PORT set it serves until stopped; otherwise it sends itself a few sample
// deliveries, prints what it received, and exits. WEBHOOK_DISPATCH=await answers only after the
// listeners succeeded (at-least-once: a failure or a crash makes the service send it again).
import express from 'express';
import { createNodeMiddleware, isInbound, WebhookHandler } from 'messaging-gateway-sdk/webhooks';

const secret = process.env.WEBHOOK_SECRET ?? 'example-secret';
const crmKey = process.env.CRM_KEY ?? 'example-crm-key';
const hooks = new WebhookHandler({
  secret, // deliveries must come to …/hooks?secret=<secret>; without secret or crmKey the constructor throws
  v3AuthToken: crmKey,
  dispatch: process.env.WEBHOOK_DISPATCH === 'await' ? 'await' : 'background',
});

hooks.on('message.add', ({ data }) => {
  for (const m of data)
    console.log(
      `message.add ${m.direction} ${m.recipient.chat_type}:…${String(m.recipient.chat_id).slice(-4)} ${m.text ? `${m.text.length} characters` : '[attachment]'}`,
    );
  for (const m of data.filter(isInbound)) console.log(`  → would reply to ${m.message_id}`);
});
hooks.on('message.status_update', ({ data }) => {
  for (const s of data)
    console.log(`message.status_update ${s.request_id} → ${s.status}${s.reason ? ` (${s.reason})` : ''}`);
});
hooks.on('channel.qr_update', ({ data }) => {
  for (const q of data) console.log(`channel.qr_update ${q.channel_id}: show the QR to the client`);
});
hooks.on('channel.status_update', ({ data }) => {
  for (const c of data) console.log(`channel.status_update ${c.channel_id} ${c.status} ${c.reason ?? ''}`);
});
hooks.on('waba_template.status_update', ({ data }) => {
  for (const t of data) console.log(`template ${t.template_id} ${t.status}`);
});
hooks.on('v3.messagesAndStatuses', ({ messages, statuses }) =>
  console.log(`v3: ${messages.length} messages, ${statuses.length} statuses`),
);
hooks.on('v3.channelsUpdates', ({ channelsUpdates }) => {
  for (const c of channelsUpdates) console.log(`v3 channel ${c.channelId} ${c.state}`);
});
hooks.on('v3.test', () => console.log('v3 test probe answered 200'));
hooks.on('unknown', (w) => console.log(`a new event kind: ${w.unknownEvent}`));
hooks.on('error', (error, { stage, rawBody }) =>
  // error.message names paths and kinds only; keep rawBody (phones, texts) in your dead-letter store, not a log
  console.error(`webhook ${stage} error: ${error.message}`, rawBody === undefined ? '' : '(raw body kept)'),
);

// The service asks the CRM to create contacts and deals; the reply is checked before it is sent.
// A repeat of a request already answered gets the same reply without the responder running again;
// `signal` aborts when the reply is no longer wanted (past replyTimeoutMs), so stop there.
hooks.respond('crm_entities.contact_add', async ({ data }, { signal }) => {
  signal.throwIfAborted();
  return { id: `crm-contact-${Date.now()}`, name: data[0]?.name ?? 'New contact' };
});
hooks.respond('crm_entities.deal_add', async ({ data }) => ({
  id: `crm-deal-${Date.now()}`,
  contacts: data[0]?.contacts ?? [],
}));
hooks.respond('v3.createContact', async ({ createContact }) => ({ id: `crm-contact-${createContact.name}` }));
hooks.respond('v3.createDeal', async () => ({ id: `crm-deal-${Date.now()}` }));

const app = express();
app.post('/hooks', createNodeMiddleware(hooks)); // no body parser needed; express.json() before it works too
app.get('/health', (_req, res) => void res.send('ok'));

const port = Number(process.env.WEBHOOK_PORT ?? 0);
const server = app.listen(port, '127.0.0.1', async () => {
  const { port: actual } = server.address() as { port: number };
  const url = `http://127.0.0.1:${actual}/hooks?secret=${secret}`;
  console.log(`receiving webhooks at ${url.replace(secret, '***')}`);
  if (process.env.WEBHOOK_PORT) return;
  await sendSamples(url);
  await hooks.drain();
  server.close();
});

async function sendSamples(url: string) {
  const meta = () => ({ idempotency_key: crypto.randomUUID(), timestamp: Math.floor(Date.now() / 1000) });
  const recipient = {
    chat_type: 'whatsapp',
    chat_id: '79001234567',
    name: 'Alice',
    profile_id: null,
    advert: null,
  };
  const v2 = [
    {
      event: 'message.add',
      data: [
        {
          message_id: 'm-1',
          channel_id: 'ch-1',
          direction: 'inbound',
          timestamp: Date.now(),
          status: 'accepted',
          recipient,
          text: 'Is my order ready?',
        },
      ],
      meta: meta(),
    },
    {
      event: 'message.status_update',
      data: [{ message_id: 'm-2', request_id: 'r-2', status: 'delivered', reason: null }],
      meta: meta(),
    },
    {
      event: 'crm_entities.contact_add',
      data: [{ responsible_user_id: 'u-1', name: 'Alice', recipient: [recipient], source: 'auto' }],
      meta: meta(),
    },
  ];
  for (const body of v2) {
    const res = await fetch(url, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
    console.log(`  ${body.event}: ${res.status} ${await res.text()}`);
  }
  const v3 = await fetch(url, {
    method: 'POST',
    body: '{"test":true}',
    headers: { authorization: `Bearer ${crmKey}` },
  });
  console.log(`  v3 probe: ${v3.status}`);
  const refused = await fetch(url.replace(secret, 'wrong'), { method: 'POST', body: JSON.stringify(v2[0]) });
  console.log(`  without the secret: ${refused.status}`);
  const again = await fetch(url, { method: 'POST', body: JSON.stringify(v2[2]) });
  console.log(`  the contact_add again (the service retries): ${again.status} ${await again.text()}`);
}
