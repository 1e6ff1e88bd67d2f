// A CRM fleet judging sends by conversation windows, against the fake gateway: each instance has
// its own receiver (a WebhookHandler the windows listen to) and its own client; the fake holds a
// wapi channel (TIER_0) and an instagram one, and fails what the service would fail.
import { createServer } from 'node:http';
import { expect } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import { MessageFailedError } from '../../src/core/errors.js';
import type { SendMessageParams } from '../../src/schemas/messages.js';
import { createFakeGateway, type FakeGateway } from '../../src/testing.js';
import { ConversationWindows } from '../../src/tracking/conversation-windows.js';
import { DeliveryTracker } from '../../src/tracking/delivery-tracker.js';
import type { WindowStore } from '../../src/tracking/window-store.js';
import { createNodeMiddleware } from '../../src/webhooks/adapters/node.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { listen } from './servers.js';

export const WAPI = 'a3f1c2d4-0000-4000-8000-0000000000a1';
export const INSTA = 'a3f1c2d4-0000-4000-8000-0000000000b2';
const SECRET = 'windows-secret';

/** A fake gateway with a wapi channel (TIER_0) and an instagram channel, both active. */
export function fakeWithWindows(): Promise<FakeGateway> {
  return createFakeGateway({
    stepMs: 1,
    channels: [
      { channel_id: WAPI, transport: 'wapi', name: 'Business number' },
      { channel_id: INSTA, transport: 'instAPI', name: 'Shop account' },
    ],
  });
}

/** One instance of the fleet. */
export interface Instance {
  hooks: WebhookHandler;
  windows: ConversationWindows;
  /** Statuses this instance's receiver hears. */
  tracker: DeliveryTracker;
  /** A client judging sends by `windows`. */
  client: GatewayClient;
  /** A client that judges nothing: what the fake does with a send the windows would refuse. */
  bare: GatewayClient;
  /** The receiver's address, to subscribe. */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts an instance on `store` (the memory store when none). `heardSince: 0`: the store is taken
 * to hold every message, so a chat that never wrote is closed at once (as after a day of
 * listening).
 */
export async function startInstance(gateway: FakeGateway, store?: WindowStore): Promise<Instance> {
  const hooks = new WebhookHandler({ secret: SECRET, dispatch: 'await' });
  const windows = new ConversationWindows({ ...(store && { store }), heardSince: 0 }).attach(hooks);
  const tracker = new DeliveryTracker().attach(hooks);
  const receiver = await listen(createServer(createNodeMiddleware(hooks)));
  const options = { baseUrl: gateway.url, token: gateway.token, logLevel: 'off' } as const;
  return {
    hooks,
    windows,
    tracker,
    client: new GatewayClient({ ...options, windows }),
    bare: new GatewayClient(options),
    url: `${receiver.url}/hooks?secret=${SECRET}`,
    close: receiver.close,
  };
}

/** A text to a chat of the wapi (or instagram) channel. */
export const textTo = (chat_id: string, channel_id = WAPI): SendMessageParams => ({
  channel_id,
  recipient: { chat_type: channel_id === INSTA ? 'instagram' : 'whatsapp', chat_id },
  text: 'Your order #1042 has shipped',
});

/** A template to a chat of the wapi channel. */
export const templateTo = (chat_id: string): SendMessageParams => ({
  channel_id: WAPI,
  recipient: { chat_type: 'whatsapp', chat_id },
  template: { id: '6d0f3e1a-2b4c-4d5e-8f70-9a1b2c3d4e5f', values: ['1042'] },
});

/** The number of sends the fake received. */
export const sendsTo = (gateway: FakeGateway) =>
  gateway.requests.filter((r) => r.method === 'POST' && r.path === '/v2/messages').length;

/** The status the fake gave a send, as `instance`'s receiver heard it: `read`, or the failure reason. */
export async function outcomeOf(instance: Instance, requestId: string): Promise<string | null> {
  try {
    return (await instance.tracker.waitFor(requestId, { until: 'read', timeoutMs: 10_000 })).status;
  } catch (error) {
    if (error instanceof MessageFailedError) return error.reason;
    throw error;
  }
}

/**
 * Two instances sharing a store: only `a` hears the fake's deliveries and reads the channels; `b`
 * sends, judged by what `a` heard. `chat` is a wapi chat that never wrote.
 */
export async function expectFleetShares(gateway: FakeGateway, a: Instance, b: Instance, chat: string) {
  await a.client.webhooks.ensure(a.url, ['message.add', 'message.status_update']);
  await a.client.channels.list();
  expect(await b.windows.get(WAPI, chat)).toEqual({ transport: 'wapi', open: false });
  const before = sendsTo(gateway);
  await expect(b.client.messages.send(textTo(chat))).rejects.toMatchObject({ code: 'window' });
  expect(sendsTo(gateway)).toBe(before);

  const template = await b.client.messages.send(templateTo(chat));
  expect(await outcomeOf(a, template.request_id)).toBe('read');
  expect((await a.windows.conversationsToday(WAPI)).count).toBeGreaterThanOrEqual(1);

  await gateway.simulate.inbound({ channel_id: WAPI, chat_id: chat, text: 'Yes, ship it' });
  expect(await b.windows.get(WAPI, chat)).toMatchObject({ open: true, closesAt: expect.any(Number) });
  const text = await b.client.messages.send(textTo(chat));
  expect(await outcomeOf(a, text.request_id)).toBe('read');
}

/**
 * A transport a channel webhook's tier implies is kept where none is stored, and never replaces
 * one a channel answer stated (the channel resource lists a tier for every channel).
 */
export async function expectImpliedTransportKept(store: WindowStore) {
  await store.recordChannels([{ channelId: 'ch-plain', transport: 'whatsapp' }]);
  await store.recordChannels([
    { channelId: 'ch-plain', impliedTransport: 'wapi', tier: 'TIER_1K' },
    { channelId: 'ch-new', impliedTransport: 'wapi', tier: 'TIER_0' },
  ]);
  expect(await store.read('ch-plain', 'chat')).toMatchObject({ transport: 'whatsapp', tier: 'TIER_1K' });
  expect(await store.read('ch-new', 'chat')).toMatchObject({ transport: 'wapi', tier: 'TIER_0' });
}
