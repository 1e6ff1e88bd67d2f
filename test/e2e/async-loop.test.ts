import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import { qrToPng } from '../../src/resources/channel-connect/qr-to-png.js';
import { createFakeGateway, type FakeGateway } from '../../src/testing.js';
import { DeliveryTracker } from '../../src/tracking/delivery-tracker.js';
import { createNodeMiddleware } from '../../src/webhooks/adapters/node.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { listen } from '../support/servers.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

async function setUp(repeats: boolean) {
  const gateway: FakeGateway = await createFakeGateway({
    repeats,
    stepMs: 5,
    channels: [{ channel_id: 'ch' }],
  });
  const hooks = new WebhookHandler({ secret: 'loop-secret' });
  const receiver = await listen(createServer(createNodeMiddleware(hooks)));
  closers.push(gateway.close, receiver.close);
  const client = new GatewayClient({ baseUrl: gateway.url, token: gateway.token, apiKey: gateway.apiKey });
  return { gateway, hooks, client, hookUrl: `${receiver.url}/hooks?secret=loop-secret` };
}

const to = (chat_id: string) =>
  ({ channel_id: 'ch', recipient: { chat_type: 'whatsapp', chat_id }, text: 'hi' }) as const;

// The failed path, v3 and injected failures are in testing-kit.test.ts, written as a user would.
describe('The asynchronous loop, end to end through the fake gateway', () => {
  it('sends, receives message.add and every status once despite duplicate deliveries, and resolves waitFor', async () => {
    const { gateway, hooks, client, hookUrl } = await setUp(true); // every delivery sent twice
    const tracker = new DeliveryTracker().attach(hooks);
    const statuses: string[] = [];
    const adds: string[] = [];
    tracker.on('status', (u) => void statuses.push(u.status));
    hooks.on('message.add', (w) => void adds.push(w.data[0]?.direction ?? ''));
    await client.webhooks.ensure(hookUrl, ['message.add', 'message.status_update']);
    const { request_id } = await client.messages.send(to('79001234567'));
    await expect(tracker.waitFor(request_id, { until: 'read', timeoutMs: 5000 })).resolves.toMatchObject({
      status: 'read',
    });
    await gateway.drain();
    await hooks.drain();
    expect(adds).toEqual(['outbound']);
    // Each status exactly once, in order: the fake waits for each answer before the next step.
    expect(statuses).toEqual(['accepted', 'sent', 'delivered', 'read']);
    expect(gateway.deliveries.filter((d) => d.repeat)).toHaveLength(5); // message.add and four statuses
    expect(gateway.deliveries).toHaveLength(10);
    expect(gateway.deliveries.every((d) => d.status === 200)).toBe(true);
  });

  it('connects a channel: channel.create, a QR that is a real PNG, then active', async () => {
    const { gateway, hooks, client, hookUrl } = await setUp(false);
    const seen: string[] = [];
    let png: Uint8Array | undefined;
    hooks.on('webhook', (w) => void (w.api === 'v2' && seen.push(w.event)));
    hooks.on('channel.qr_update', ({ data }) => {
      png = qrToPng(data[0]?.qr_code ?? '');
    });
    const active = new Promise<void>((r) => hooks.on('channel.status_update', () => r()));
    await client.webhooks.ensure(hookUrl, ['channel.create', 'channel.qr_update', 'channel.status_update']);
    const [created] = await client.channels.create({ transport: 'whatsapp', credentials: {} });
    await active;
    await gateway.drain(); // every delivery answered
    await hooks.drain();
    expect([...seen].sort()).toEqual(['channel.create', 'channel.qr_update', 'channel.status_update']);
    expect(png && png.byteLength > 100).toBe(true);
    await expect(client.channels.get(created?.channel_id ?? '')).resolves.toMatchObject({ status: 'active' });
  });
});
