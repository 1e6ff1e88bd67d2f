// The testing kit from the outside: written as a user's vitest file would be, importing only the
// package's public entries.
import { createServer } from 'node:http';
import {
  AuthenticationError,
  DeliveryTracker,
  GatewayClient,
  GatewayConnectionError,
  InternalServerError,
  MessageFailedError,
  RateLimitError,
} from 'messaging-gateway-sdk';
import { buildWebhook, createFakeGateway, type FakeGateway } from 'messaging-gateway-sdk/testing';
import { createNodeMiddleware, type Webhook, WebhookHandler } from 'messaging-gateway-sdk/webhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const SECRET = 'test-secret';
let gateway: FakeGateway;
let hooks: WebhookHandler;
let received: Webhook[];
let hookUrl: string;
let closeReceiver: () => Promise<void>;

async function startReceiver() {
  hooks = new WebhookHandler({ secret: SECRET, v3AuthToken: 'crm-key' });
  received = [];
  hooks.on('webhook', (w) => void received.push(w));
  const server = createServer(createNodeMiddleware(hooks));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  hookUrl = `http://127.0.0.1:${port}/hooks?secret=${SECRET}`;
  closeReceiver = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

beforeEach(async () => {
  gateway = await createFakeGateway({ stepMs: 1, crmKey: 'crm-key', channels: [{ channel_id: 'ch-1' }] });
  await startReceiver();
});
afterEach(async () => {
  await gateway.close();
  await closeReceiver();
});

const clientFor = (g: FakeGateway, options = {}) =>
  new GatewayClient({ baseUrl: g.url, token: g.token, apiKey: g.apiKey, ...options });
const to = (chat_id: string) =>
  ({
    channel_id: 'ch-1',
    recipient: { chat_type: 'whatsapp', chat_id },
    text: 'Your order shipped',
  }) as const;

describe('client → fake gateway → webhooks → DeliveryTracker', () => {
  it('follows a send to read, and the receiver hears its message.add', async () => {
    const client = clientFor(gateway);
    const tracker = new DeliveryTracker().attach(hooks);
    await client.webhooks.ensure(hookUrl, ['message.add', 'message.status_update']);
    const { request_id } = await client.messages.send(to('79001234567'));
    await expect(tracker.waitFor(request_id, { until: 'read', timeoutMs: 5000 })).resolves.toMatchObject({
      status: 'read',
    });
    await gateway.drain();
    await hooks.drain();
    const adds = received.filter((w) => w.api === 'v2' && w.event === 'message.add');
    expect(adds).toHaveLength(1);
    expect(gateway.messages.size).toBe(1);
    expect([...gateway.messages.values()][0]).toMatchObject({ request_id, status: 'read' });
  });

  it('ends a send to a number starting with 000 in MessageFailedError, bad_contact', async () => {
    const client = clientFor(gateway);
    const tracker = new DeliveryTracker().attach(hooks);
    await client.webhooks.subscribe([{ url: hookUrl, event: 'message.status_update' }]);
    const { request_id } = await client.messages.send(to('0001234567'));
    const error = await tracker.waitFor(request_id, { timeoutMs: 5000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MessageFailedError);
    expect(error).toMatchObject({ reason: 'bad_contact' });
  });

  it('lets the test drive statuses with autoStatuses: false and simulate.status', async () => {
    const manual = await createFakeGateway({ autoStatuses: false, channels: [{ channel_id: 'ch-1' }] });
    try {
      const client = clientFor(manual);
      const tracker = new DeliveryTracker().attach(hooks);
      await client.webhooks.subscribe([{ url: hookUrl, event: 'message.status_update' }]);
      const { request_id } = await client.messages.send(to('79001234567'));
      await manual.drain();
      expect(tracker.statusOf(request_id)).toBeUndefined(); // nothing arrives on its own
      const made = await manual.simulate.status(request_id, 'delivered');
      expect(made.map((d) => d.status)).toEqual([200]);
      await expect(
        tracker.waitFor(request_id, { until: 'delivered', timeoutMs: 1000 }),
      ).resolves.toMatchObject({
        status: 'delivered',
      });
      await expect(manual.simulate.status('no-such-request', 'read')).rejects.toThrow(/request_id/);
    } finally {
      await manual.close();
    }
  });

  it('delivers an inbound message and any built delivery to the subscribers', async () => {
    await clientFor(gateway).webhooks.ensure(hookUrl, ['message.add', 'channel.waba_tier_update']);
    await gateway.simulate.inbound({ channel_id: 'ch-1', chat_id: '79001234567', text: 'Hi', name: 'Alice' });
    await gateway.simulate.deliver(
      buildWebhook('channel.waba_tier_update', { data: [{ tier: 'TIER_10K' }] }),
    );
    await hooks.drain();
    expect(received).toMatchObject([
      { event: 'message.add', data: [{ direction: 'inbound', text: 'Hi', recipient: { name: 'Alice' } }] },
      { event: 'channel.waba_tier_update', data: [{ tier: 'TIER_10K' }] },
    ]);
  });

  it('repeats deliveries when asked, and the handler dispatches each once', async () => {
    gateway.repeats = true;
    const texts: string[] = [];
    hooks.on('message.add', ({ data }) => void texts.push(data[0]?.text ?? ''));
    await clientFor(gateway).webhooks.subscribe([{ url: hookUrl, event: 'message.add' }]);
    const made = await gateway.simulate.inbound({ channel_id: 'ch-1', chat_id: '79001234567', text: 'once' });
    await hooks.drain();
    expect(made.map((d) => [d.repeat, d.status])).toEqual([
      [false, 200],
      [true, 200],
    ]);
    expect(texts).toEqual(['once']);
  });

  it("takes every event the SDK subscribes to, channel.update of the spec's sample list included", async () => {
    const client = clientFor(gateway);
    const now = await client.webhooks.ensure(hookUrl, ['channel.update', 'channel.status_update']);
    expect(now.map((s) => s.event).sort()).toEqual(['channel.status_update', 'channel.update']);
    await gateway.simulate.deliver(buildWebhook('channel.update'));
    await hooks.drain();
    expect(received).toMatchObject([{ api: 'v2', event: 'channel.update' }]);
  });

  it('creates a channel: QR then active, kept by the fake and listed', async () => {
    const client = clientFor(gateway);
    await client.webhooks.ensure(hookUrl, ['channel.create', 'channel.qr_update', 'channel.status_update']);
    const [created] = await client.channels.create({ transport: 'whatsapp', credentials: {} });
    await gateway.drain();
    await hooks.drain();
    expect(received.map((w) => (w.api === 'v2' ? w.event : w.type))).toEqual([
      'channel.create',
      'channel.qr_update',
      'channel.status_update',
    ]);
    const listed = await client.channels.list();
    expect(listed.find((c) => c.channel_id === created?.channel_id)).toMatchObject({ status: 'active' });
  });

  it('speaks v3: the settings PATCH makes the test POST, then sends arrive as v3 deliveries with the crmKey', async () => {
    const client = clientFor(gateway);
    const tracker = new DeliveryTracker().attach(hooks);
    const subscriptions = {
      messagesAndStatuses: true,
      contactsAndDealsCreation: false,
      channelsUpdates: false,
      templateStatus: false,
    };
    await client.v3.webhooks.update({ webhooksUri: hookUrl, subscriptions });
    expect(gateway.deliveries[0]).toMatchObject({ api: 'v3', kind: 'test', status: 200 });
    expect(gateway.v3Settings).toEqual({ webhooksUri: hookUrl, subscriptions });
    const { request_id } = await client.messages.send(to('79001234567'));
    await gateway.drain();
    await hooks.drain();
    const v3 = received.filter((w) => w.api === 'v3');
    expect(v3.map((w) => w.type)).toEqual(['test', ...Array(4).fill('messagesAndStatuses')]);
    expect(tracker.statusOf(request_id)).toBeUndefined(); // v3 statuses carry no request_id
  });
});

describe('failures, as a test injects them', () => {
  it('answers the next matching request with failNext, once', async () => {
    gateway.failNext('POST', '/v2/messages', { status: 503, body: { error: 'unavailable' } });
    const client = clientFor(gateway, { retryBackoff: { initialDelayMs: 1 } });
    await expect(client.messages.send(to('79001234567'))).rejects.toBeInstanceOf(InternalServerError);
    expect(gateway.requests).toHaveLength(1); // a POST is never repeated after a 5xx
    await expect(client.messages.send(to('79001234567'))).resolves.toHaveProperty('request_id');
  });

  it('a dropped connection on a GET is retried by the client', async () => {
    gateway.failNext('GET', '/v2/channels', { status: 0, dropConnection: true });
    const client = clientFor(gateway, { retryBackoff: { initialDelayMs: 1 } });
    await expect(client.channels.list()).resolves.toHaveLength(1);
    expect(gateway.requests.map((r) => r.status)).toEqual([0, 200]);
    gateway.failNext('GET', '/v2/channels', { status: 0, dropConnection: true, times: 3 });
    await expect(clientFor(gateway, { maxRetries: 0 }).channels.list()).rejects.toBeInstanceOf(
      GatewayConnectionError,
    );
  });

  it('answers a wrong v2 token and a wrong v3 API key 401', async () => {
    const wrong = new GatewayClient({ baseUrl: gateway.url, token: 'wrong', apiKey: 'wrong' });
    await expect(wrong.channels.list()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(wrong.v3.webhooks.get()).rejects.toBeInstanceOf(AuthenticationError);
    expect(gateway.requests.map((r) => [r.path, r.status])).toEqual([
      ['/v2/channels', 401],
      ['/v3/webhooks', 401],
    ]);
    await expect(clientFor(gateway).channels.list()).resolves.toHaveLength(1);
  });

  it('answers 429 with Retry-After over its limit', async () => {
    const limited = await createFakeGateway({ rateLimit: { requests: 2, intervalMs: 60_000 } });
    try {
      const client = clientFor(limited, { rateLimit: false, maxRetries: 0 });
      await client.channels.list();
      await client.channels.list();
      const error = await client.channels.list().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect((error as RateLimitError).retryAfterMs).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});

describe('connections', () => {
  it('keeps an idle connection longer than a rate-limit window, so a client paced at the limit reuses it', async () => {
    const response = await fetch(`${gateway.url}/v2/channels`); // any answer, a 401 as well
    await response.arrayBuffer();
    // Node's own default (timeout=5) equals the 5 s window: every paced batch would reconnect.
    expect(response.headers.get('keep-alive')).toBe('timeout=65');
  });
});

describe('what the fake records', () => {
  it('keeps every request with its method, path, headers and body', async () => {
    await clientFor(gateway).messages.send(to('79001234567'));
    expect(gateway.requests[0]).toMatchObject({
      method: 'POST',
      path: '/v2/messages',
      status: 200,
      headers: { authorization: `Bearer ${gateway.token}` },
      body: to('79001234567'),
    });
  });

  it('reset() forgets state, records and queued failures', async () => {
    const client = clientFor(gateway);
    await client.webhooks.subscribe([{ url: hookUrl, event: 'message.add' }]);
    gateway.failNext('GET', '/v2/webhooks', { status: 500 });
    gateway.reset();
    expect([gateway.requests.length, gateway.subscriptions.size]).toEqual([0, 0]);
    await expect(client.webhooks.list()).resolves.toEqual([]);
  });
});

describe('close()', () => {
  it('returns at once while a life cycle waits out a long stepMs', async () => {
    const slow = await createFakeGateway({ stepMs: 60_000, channels: [{ channel_id: 'ch-1' }] });
    await clientFor(slow).messages.send(to('79001234567')); // its statuses wait a step each
    const t0 = performance.now();
    await slow.close();
    expect(performance.now() - t0).toBeLessThan(1_000);
  });
});

describe('a reinit', () => {
  it('forgets the last QR until the new one is shown (the inbox never shows a stale QR)', async () => {
    const slow = await createFakeGateway({ autoScan: false, stepMs: 300 });
    try {
      const client = clientFor(slow);
      const [created] = await client.channels.create({ transport: 'whatsapp', credentials: {} });
      const id = created?.channel_id as string;
      for (let i = 0; i < 100 && slow.channels.get(id)?.qr === undefined; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(slow.channels.get(id)?.qr).toMatch(/^data:image\/png;base64,/);
      await client.channels.reinit(id, { credentials: {} });
      expect(slow.channels.get(id)?.qr).toBeUndefined(); // the new QR comes a step (300 ms) later
    } finally {
      await slow.close();
    }
  });
});
