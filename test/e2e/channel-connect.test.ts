// channels.connect over real HTTP against the fake gateway, its webhooks received by a real
// node:http server running a WebhookHandler.
import { createServer } from 'node:http';
import {
  ChannelConnectError,
  type ConnectStep,
  GatewayAbortError,
  GatewayClient,
  GatewayTimeoutError,
} from 'messaging-gateway-sdk';
import { createFakeGateway, type FakeGateway } from 'messaging-gateway-sdk/testing';
import { createNodeMiddleware, WebhookHandler } from 'messaging-gateway-sdk/webhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodePng } from '../../src/cli/png-decode.js';
import { qrModules } from '../../src/cli/terminal-qr.js';
import { qrText } from '../../src/testing/channel-life.js';
import { readModules } from '../support/qr-read.js';

const SECRET = 'test-secret';
const PNG = [0x89, 0x50, 0x4e, 0x47];
let gateway: FakeGateway;
let closers: (() => Promise<void>)[];

async function receiver(): Promise<{ hooks: WebhookHandler; url: string }> {
  const hooks = new WebhookHandler({ secret: SECRET, v3AuthToken: 'crm-key' });
  const server = createServer(createNodeMiddleware(hooks));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { hooks, url: `http://127.0.0.1:${port}/hooks?secret=${SECRET}` };
}

const clientFor = (g: FakeGateway) => new GatewayClient({ baseUrl: g.url, token: g.token, apiKey: g.apiKey });
const CHANNEL_EVENTS = ['channel.qr_update', 'channel.status_update'] as const;

async function subscribeV2(client: GatewayClient, url: string) {
  await client.webhooks.subscribe(CHANNEL_EVENTS.map((event) => ({ url, event })));
}

async function collect(connection: AsyncIterable<ConnectStep>, onStep?: (s: ConnectStep) => Promise<void>) {
  const steps: ConnectStep[] = [];
  for await (const step of connection) {
    steps.push(step);
    await onStep?.(step);
  }
  return steps;
}

/** A fake that waits for `simulate.scan` (replacing the default one), and its client. */
async function waitingGateway(options = {}): Promise<GatewayClient> {
  await gateway.close();
  gateway = await createFakeGateway({ stepMs: 1, autoScan: false, ...options });
  return clientFor(gateway);
}

const webhookListeners = (hooks: WebhookHandler) => hooks.listenerCount('webhook');

beforeEach(async () => {
  closers = [];
  gateway = await createFakeGateway({ stepMs: 5, crmKey: 'crm-key' });
});
afterEach(async () => {
  await gateway.close();
  for (const close of closers) await close();
});

describe('channels.connect', () => {
  it('whatsapp over v2: created → qr (a PNG) → active, and nothing stays subscribed', async () => {
    const client = clientFor(gateway);
    const { hooks, url } = await receiver();
    await subscribeV2(client, url);
    const steps = await collect(
      client.channels.connect({ transport: 'whatsapp', credentials: {} }, { hooks }),
    );
    expect(steps.map((s) => s.kind)).toEqual(['created', 'qr', 'active']);
    const qr = steps[1] as Extract<ConnectStep, { kind: 'qr' }>;
    expect([...qr.png.slice(0, 4)]).toEqual(PNG);
    // a real QR code: it decodes to what the fake put in it
    expect(readModules(qrModules(decodePng(qr.png)))).toBe(qrText(qr.channelId, 0));
    const active = steps[2] as Extract<ConnectStep, { kind: 'active' }>;
    expect(active.channel).toMatchObject({ channel_id: steps[0]?.channelId, status: 'active' });
    expect(webhookListeners(hooks)).toBe(0);
  });

  it('whatsapp over v3 channelsUpdates: qr → active', async () => {
    const client = clientFor(gateway);
    const { hooks, url } = await receiver();
    const subscriptions = {
      messagesAndStatuses: false,
      contactsAndDealsCreation: false,
      channelsUpdates: true,
      templateStatus: false,
    };
    await client.v3.webhooks.update({ webhooksUri: url, subscriptions });
    const steps = await collect(
      client.channels.connect({ transport: 'whatsapp', credentials: {} }, { hooks }),
    );
    expect(steps.map((s) => s.kind)).toEqual(['created', 'qr', 'active']);
    const qr = steps[1] as Extract<ConnectStep, { kind: 'qr' }>;
    expect(readModules(qrModules(decodePng(qr.png)))).toBe(qrText(qr.channelId, 0));
  });

  it('telegram bot: created → active', async () => {
    const client = clientFor(gateway);
    const { hooks, url } = await receiver();
    await subscribeV2(client, url);
    const connection = client.channels.connect(
      { transport: 'telegram', credentials: { telegram_token: '123:abc' } },
      { hooks },
    );
    expect((await collect(connection)).map((s) => s.kind)).toEqual(['created', 'active']);
  });

  it('wapi: created → url → active', async () => {
    const client = clientFor(gateway);
    const { hooks, url } = await receiver();
    await subscribeV2(client, url);
    const steps = await collect(client.channels.connect({ transport: 'wapi', credentials: {} }, { hooks }));
    expect(steps.map((s) => s.kind)).toEqual(['created', 'url', 'active']);
    expect(steps[1]).toMatchObject({ url: expect.stringMatching(/^https:/) });
  });

  it('pairingPhone: a pairing code follows the first QR', async () => {
    const client = clientFor(gateway);
    const { hooks, url } = await receiver();
    await subscribeV2(client, url);
    const connection = client.channels.connect(
      { transport: 'whatsapp', credentials: {} },
      { hooks, pairingPhone: '79001234567' },
    );
    const steps = await collect(connection);
    expect(steps.map((s) => s.kind)).toEqual(['created', 'qr', 'pairing-code', 'active']);
    expect(steps[2]).toMatchObject({ code: expect.any(String), phone: '79001234567' });
    const asked = gateway.requests.find((r) => r.path.endsWith('/pairing-code'));
    expect(asked?.body).toMatchObject({ transport: 'whatsapp', pairing_phone: '79001234567' });
  });

  it('QR expiry: refreshed QRs, then ChannelConnectError qridle; a pairing code is refused after', async () => {
    const client = await waitingGateway({ qrLifetimeMs: 150 });
    const { hooks, url } = await receiver();
    await subscribeV2(client, url);
    const connection = client.channels.connect({ transport: 'whatsapp', credentials: {} }, { hooks });
    const steps: string[] = [];
    const error = await collect(connection, async (s) => void steps.push(s.kind)).catch((e: unknown) => e);
    expect(steps).toEqual(['created', 'qr', 'qr', 'qr']);
    expect(error).toBeInstanceOf(ChannelConnectError);
    expect(error).toMatchObject({ reason: 'qridle', channelId: connection.channelId });
    expect(webhookListeners(hooks)).toBe(0);
    const late = client.channels.requestPairingCode(connection.channelId as string, {
      transport: 'whatsapp',
    });
    await expect(late).rejects.toMatchObject({ status: 400 });
  });

  it.each([
    ['foreignphone', (g: FakeGateway, id: string) => g.simulate.scan(id, { foreignPhone: true })],
    [
      'openelsewhere',
      (g: FakeGateway, id: string) => g.simulate.channelStatus(id, 'disabled', 'openelsewhere'),
    ],
  ])('ends with ChannelConnectError %s', async (reason, act) => {
    const client = await waitingGateway();
    const { hooks, url } = await receiver();
    await subscribeV2(client, url);
    const connection = client.channels.connect({ transport: 'whatsapp', credentials: {} }, { hooks });
    const failure = collect(connection, async (step) => {
      if (step.kind === 'qr') await act(gateway, step.channelId);
    });
    const error = await failure.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChannelConnectError);
    expect(error).toMatchObject({ reason, channelId: connection.channelId });
    expect(webhookListeners(hooks)).toBe(0);
  });

  it('password: scan → wait_for_password → a wrong code refused, asked again → right code → active', async () => {
    const client = await waitingGateway();
    const { hooks, url } = await receiver();
    await subscribeV2(client, url);
    const connection = client.channels.connect({ transport: 'whatsapp', credentials: {} }, { hooks });
    const codes = ['000000', '123456'];
    const refusals: unknown[] = [];
    const steps = await collect(connection, async (step) => {
      if (step.kind === 'qr') await gateway.simulate.scan(step.channelId, { password: '123456' });
      if (step.kind === 'password') {
        await connection.submit2fa(codes.shift() as string).catch((e: unknown) => void refusals.push(e));
      }
    });
    expect(steps.map((s) => s.kind)).toEqual(['created', 'qr', 'password', 'password', 'active']);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ status: 400 });
  });

  it('completes by channels.get when the webhooks reach another instance', async () => {
    const client = clientFor(gateway);
    const other = await receiver(); // subscribed: the fleet's other instance
    const mine = await receiver(); // hears nothing
    await subscribeV2(client, other.url);
    const heard: string[] = [];
    other.hooks.on('channel.status_update', (e) => void heard.push(e.data[0]?.status ?? ''));
    const connection = client.channels.connect(
      { transport: 'whatsapp', credentials: {} },
      { hooks: mine.hooks, pollIntervalMs: 1000 }, // the shortest poll allowed
    );
    const steps = await collect(connection);
    expect(steps.map((s) => s.kind)).toEqual(['created', 'active']);
    expect(heard).toContain('active');
  });

  it('rejects with GatewayTimeoutError past timeoutMs, and unsubscribes', async () => {
    const client = await waitingGateway();
    const { hooks } = await receiver();
    const connection = client.channels.connect(
      { transport: 'whatsapp', credentials: {} },
      { hooks, timeoutMs: 100 },
    );
    await expect(collect(connection)).rejects.toBeInstanceOf(GatewayTimeoutError);
    expect(webhookListeners(hooks)).toBe(0);
  });

  it('a time-out says what the flow waited for and its last step, not "no answer" from a call', async () => {
    const client = await waitingGateway();
    const { hooks, url } = await receiver();
    await subscribeV2(client, url);
    // Long enough for each step to come on a busy machine: the flow then sits at the step named.
    const atQr = client.channels.connect(
      { transport: 'whatsapp', credentials: {} },
      { hooks, timeoutMs: 3000 },
    );
    const error = await collect(atQr).catch((e: GatewayTimeoutError) => e);
    expect(error).toBeInstanceOf(GatewayTimeoutError);
    expect(error).toMatchObject({ method: 'GET', timeoutMs: 3000 });
    expect((error as Error).message).toBe(
      `channels.connect: channel ${atQr.channelId} not active within 3000 ms: waiting for the QR code to be scanned (last step: qr)`,
    );

    const atPassword = client.channels.connect(
      { transport: 'whatsapp', credentials: {} },
      { hooks, timeoutMs: 3000 },
    );
    const unanswered = await collect(atPassword, async (step) => {
      if (step.kind === 'qr') await gateway.simulate.scan(step.channelId, { password: '123456' });
    }).catch((e: Error) => e);
    expect((unanswered as Error).message).toMatch(
      /not active within 3000 ms: waiting for the two-factor password \(submit2fa\) \(last step: password\)$/,
    );
  });

  it('a time-out before the create is answered says no channel was created', async () => {
    const client = clientFor(gateway);
    const { hooks } = await receiver();
    gateway.failNext('POST', '/v2/channels', { status: 503, delayMs: 5000 });
    const connection = client.channels.connect(
      { transport: 'whatsapp', credentials: {} },
      { hooks, timeoutMs: 200 },
    );
    const error = await collect(connection).catch((e: Error) => e);
    expect(error).toBeInstanceOf(GatewayTimeoutError);
    expect((error as Error).message).toBe(
      'channels.connect: no channel created within 200 ms (the service did not answer the create)',
    );
  });

  it('an abort mid-way rejects with GatewayAbortError and leaves no listener', async () => {
    const client = await waitingGateway();
    const { hooks } = await receiver();
    const controller = new AbortController();
    const connection = client.channels.connect(
      { transport: 'whatsapp', credentials: {} },
      { hooks, signal: controller.signal },
    );
    const run = collect(connection, async (step) => {
      if (step.kind === 'created') setTimeout(() => controller.abort(new Error('user left')), 20);
    });
    await expect(run).rejects.toBeInstanceOf(GatewayAbortError);
    expect(webhookListeners(hooks)).toBe(0);
  });

  it('adds no listener to the handler, during the flow or after a break', async () => {
    const client = await waitingGateway();
    const { hooks } = await receiver();
    for await (const step of client.channels.connect({ transport: 'whatsapp', credentials: {} }, { hooks })) {
      expect(step.kind).toBe('created');
      expect(webhookListeners(hooks)).toBe(0);
      break;
    }
    expect(webhookListeners(hooks)).toBe(0);
  });
});
