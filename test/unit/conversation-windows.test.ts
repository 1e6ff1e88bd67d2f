// ConversationWindows on its default memory store (DESIGN: Conversation windows): what opens a
// window, what a send outside it gets, the tier, and what is never refused on a guess.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import {
  ConversationWindowError,
  GatewayError,
  GatewayValidationError,
  InternalServerError,
} from '../../src/core/errors.js';
import type { SendMessageParams } from '../../src/schemas/messages.js';
import { buildWebhook } from '../../src/testing/build-webhook.js';
import { ConversationWindows } from '../../src/tracking/conversation-windows.js';
import { MemoryWindowStore } from '../../src/tracking/memory-window-store.js';
import type { WindowStore } from '../../src/tracking/window-store.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { post } from '../support/deliveries.js';

const HOUR = 3_600_000;
const WAPI = 'c0a80101-0000-4000-8000-00000000wapi';
const INSTA = 'c0a80101-0000-4000-8000-0000000insta';
const PLAIN = 'c0a80101-0000-4000-8000-000000000wa1';
const CHAT = '79001234567';

const text = (channel_id: string, chat_id = CHAT) =>
  ({
    channel_id,
    recipient: { chat_type: channel_id === INSTA ? 'instagram' : 'whatsapp', chat_id },
    text: 'Your order has shipped',
  }) as const;
const template = (chat_id = CHAT): SendMessageParams => ({
  channel_id: WAPI,
  recipient: { chat_type: 'whatsapp', chat_id },
  template: { id: '0f8e4a2c-6b1d-4e3f-a9c7-2d5b8e1f4a60', values: ['1042'] },
});

/** Windows that heard every message of the last week, knowing the three channels. */
async function knownWindows(options: ConstructorParameters<typeof ConversationWindows>[0] = {}) {
  const windows = new ConversationWindows({ heardSince: 0, ...options });
  await windows.learnChannels([
    { channel_id: WAPI, transport: 'wapi', tier: 'TIER_0' },
    { channel_id: INSTA, transport: 'instAPI', tier: null },
    { channel_id: PLAIN, transport: 'whatsapp', tier: null },
  ]);
  return windows;
}

/** A handler the windows listen to, and a way to deliver a body to it. */
function listening(windows: ConversationWindows) {
  const hooks = new WebhookHandler({ secret: 's', dispatch: 'await' });
  windows.attach(hooks);
  return async (body: object) => {
    const answer = await hooks.handle(post(JSON.stringify(body), '/hooks?secret=s'));
    expect(answer.status).toBe(200);
  };
}

const inbound = (channel_id: string, timestamp: number, extra: object = {}) =>
  buildWebhook('message.add', {
    data: [
      {
        channel_id,
        direction: 'inbound',
        timestamp,
        recipient: { chat_type: 'whatsapp', chat_id: CHAT },
        ...extra,
      },
    ],
  });

/** A client whose every request is answered 200 by a counting fetch (or `answer`). */
function clientWith(windows: ConversationWindows, answer?: () => Response) {
  let requests = 0;
  const fetch = async () => {
    requests++;
    return answer?.() ?? Response.json({ data: { request_id: crypto.randomUUID(), chat_id: CHAT } });
  };
  const client = new GatewayClient({
    baseUrl: 'http://gateway.test',
    token: 'a-test-token',
    fetch,
    windows,
    maxRetries: 0,
  });
  return { client, requests: () => requests };
}

afterEach(() => vi.useRealTimers());

describe('ConversationWindows: what a send gets', () => {
  it('refuses text to a wapi chat that never wrote, before any request, saying a template opens it', async () => {
    const windows = await knownWindows();
    const { client, requests } = clientWith(windows);
    const error = await client.messages.send(text(WAPI)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConversationWindowError);
    expect(error).toBeInstanceOf(GatewayValidationError);
    expect(error).toMatchObject({
      code: 'window',
      channelId: WAPI,
      chatId: CHAT,
      lastInboundAt: undefined,
      closedAt: undefined,
      requestSent: false,
      retryable: false,
    });
    const { message } = error as Error;
    expect(message).toContain('a template opens a wapi conversation');
    expect(message).not.toContain(CHAT);
    expect(message).not.toContain('shipped');
    expect(JSON.stringify(error)).not.toContain(CHAT); // chatId is not enumerable: loggers leave it out
    expect(requests()).toBe(0);
  });

  it('an inbound message opens the wapi window at its own time for 24 hours; an echo never does', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-01T12:00:00Z'), toFake: ['Date'] });
    const windows = await knownWindows();
    const deliver = listening(windows);
    const { client, requests } = clientWith(windows);
    await deliver(inbound(WAPI, Date.now(), { direction: 'outbound' }));
    await expect(client.messages.send(text(WAPI))).rejects.toBeInstanceOf(ConversationWindowError);

    await deliver(inbound(WAPI, Date.now() - 2 * HOUR));
    await expect(client.messages.send(text(WAPI))).resolves.toMatchObject({ chat_id: CHAT });
    expect(await windows.get(WAPI, CHAT)).toEqual({
      transport: 'wapi',
      open: true,
      lastInboundAt: Date.now() - 2 * HOUR,
      closesAt: Date.now() + 22 * HOUR,
    });

    vi.setSystemTime(Date.now() + 22 * HOUR + 1);
    const error = await client.messages.send(text(WAPI)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'window', closedAt: Date.parse('2026-11-02T10:00:00Z') });
    expect((error as Error).message).toContain('it closed at 2026-11-02T10:00:00.000Z');
    expect(await windows.get(WAPI, CHAT)).toMatchObject({ open: false, lastInboundAt: expect.any(Number) });
    expect(requests()).toBe(1);
  });

  it('reads a v2 timestamp in seconds, and never lets a time ahead of the clock keep a window open', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-01T12:00:00Z'), toFake: ['Date'] });
    const windows = await knownWindows();
    const deliver = listening(windows);
    await deliver(inbound(WAPI, Math.floor(Date.now() / 1000) - 3600));
    expect((await windows.get(WAPI, CHAT)).lastInboundAt).toBe(Date.now() - HOUR);
    await deliver(
      inbound(WAPI, Date.now() + 1000 * HOUR, {
        recipient: { chat_type: 'whatsapp', chat_id: '79000000001' },
      }),
    );
    expect((await windows.get(WAPI, '79000000001')).closesAt).toBe(Date.now() + 24 * HOUR);
  });

  it('v3: an inbound message opens the window at its dateTime (UTC); echoes and edits do not', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-01T12:00:00Z'), toFake: ['Date'] });
    const windows = await knownWindows();
    const deliver = listening(windows);
    const v3 = (chatId: string, extra: object) =>
      buildWebhook('v3.messages', {
        messages: [
          { channelId: INSTA, chatType: 'instagram', chatId, dateTime: '2026-10-30T12:00:00.000', ...extra },
        ],
      });
    await deliver(v3('shop.customer', { isEcho: false, status: 'inbound' }));
    await deliver(v3('echoed', { isEcho: true, status: 'sent' }));
    await deliver(v3('edited', { isEcho: false, status: 'inbound', isEdited: true }));
    expect(await windows.get(INSTA, 'shop.customer')).toEqual({
      transport: 'instAPI',
      open: true,
      lastInboundAt: Date.parse('2026-10-30T12:00:00Z'),
      closesAt: Date.parse('2026-11-06T12:00:00Z'),
    });
    expect((await windows.get(INSTA, 'echoed')).open).toBe(false);
    expect((await windows.get(INSTA, 'edited')).open).toBe(false);
  });

  it('instagram: 7 days, and the refusal says the customer must write (no template there)', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-10T00:00:00Z'), toFake: ['Date'] });
    const windows = await knownWindows();
    await windows.observeInbound(INSTA, CHAT, Date.now() - 6 * 24 * HOUR);
    const { client } = clientWith(windows);
    await expect(client.messages.send(text(INSTA))).resolves.toBeDefined();
    vi.setSystemTime(Date.now() + 24 * HOUR);
    const error = await client.messages.send(text(INSTA)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'window', closedAt: Date.parse('2026-11-11T00:00:00Z') });
    expect((error as Error).message).toContain('7-day');
    expect((error as Error).message).toContain('when the customer writes');
  });

  it('checks attachments as text; never a template; never a channel without windows or of unknown transport', async () => {
    const windows = await knownWindows();
    const { client, requests } = clientWith(windows);
    const file = {
      channel_id: WAPI,
      recipient: { chat_type: 'whatsapp', chat_id: CHAT },
      attachment: { url: 'https://files.example/a.pdf' },
    } as const;
    await expect(client.messages.send(file)).rejects.toMatchObject({ code: 'window' });
    await expect(client.messages.send(template())).resolves.toBeDefined();
    await expect(client.messages.send(text(PLAIN))).resolves.toBeDefined();
    await expect(client.messages.send(text('a-channel-nobody-described'))).resolves.toBeDefined();
    expect(requests()).toBe(3);
  });

  it('learns a wapi channel and its tier from channel.waba_tier_update and v3 channelsUpdates', async () => {
    const windows = new ConversationWindows({ heardSince: 0 });
    const deliver = listening(windows);
    const { client } = clientWith(windows);
    await expect(client.messages.send(text('w1'))).resolves.toBeDefined(); // not known: not checked
    await deliver(
      buildWebhook('channel.waba_tier_update', { data: [{ channel_id: 'w1', tier: 'TIER_1K' }] }),
    );
    await deliver(
      buildWebhook('v3.channelsUpdates', {
        channelsUpdates: [{ channelId: 'w2', state: 'active', tier: 'TIER_0' }],
      }),
    );
    await deliver(
      buildWebhook('channel.status_update', {
        data: [{ channel_id: 'w3', status: 'active', reason: null, transport: 'instAPI' } as never],
      }),
    );
    await expect(client.messages.send(text('w1'))).rejects.toMatchObject({ code: 'window' });
    expect(await windows.conversationsToday('w2')).toEqual({ count: 0, tier: 'TIER_0', cap: 250 });
    expect((await windows.get('w3', CHAT)).transport).toBe('instAPI');
  });

  it('learns transports from the channels the client reads', async () => {
    const windows = new ConversationWindows({ heardSince: 0 });
    const channels = [{ channel_id: WAPI, transport: 'wapi', tier: 'TIER_0', status: 'active' }];
    const { client } = clientWith(windows, () => Response.json({ data: channels }));
    await client.channels.list();
    expect((await windows.get(WAPI, CHAT)).transport).toBe('wapi');
    expect(await windows.conversationsToday(WAPI)).toMatchObject({ tier: 'TIER_0', cap: 250 });
  });

  it('learns a transport and tier from the one channel channels.get answers', async () => {
    const windows = new ConversationWindows({ heardSince: 0 });
    const channel = { channel_id: 'w9', transport: 'wapi', tier: 'TIER_10K', status: 'active' };
    const { client } = clientWith(windows, () => Response.json({ data: [channel] }));
    await client.channels.get('w9');
    expect((await windows.get('w9', CHAT)).transport).toBe('wapi');
    expect(await windows.conversationsToday('w9')).toMatchObject({ tier: 'TIER_10K', cap: 10_000 });
    await expect(client.messages.send(text('w9'))).rejects.toMatchObject({ code: 'window' });
  });
});

describe('ConversationWindows: nothing refused on a guess', () => {
  it('a chat of which nothing is known is not refused until a whole window has passed since listening began', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-01T12:00:00Z'), toFake: ['Date'] });
    const windows = new ConversationWindows();
    await windows.learnChannels([{ channel_id: WAPI, transport: 'wapi' }]);
    const { client } = clientWith(windows);
    await expect(client.messages.send(text(WAPI))).resolves.toBeDefined(); // nothing listens: never refused
    listening(windows);
    await expect(client.messages.send(text(WAPI))).resolves.toBeDefined();
    expect(await windows.get(WAPI, CHAT)).toEqual({ transport: 'wapi', open: true });
    vi.setSystemTime(Date.now() + 24 * HOUR);
    await expect(client.messages.send(text(WAPI))).rejects.toMatchObject({ code: 'window' });
  });

  it('after a detach, a chat that wrote while nothing listened is not refused when listening resumes', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-01T12:00:00Z'), toFake: ['Date'] });
    const windows = new ConversationWindows();
    await windows.learnChannels([{ channel_id: WAPI, transport: 'wapi' }]);
    listening(windows);
    vi.setSystemTime(Date.now() + 24 * HOUR);
    windows.detach(); // the customer writes now: nothing hears it
    vi.setSystemTime(Date.now() + HOUR);
    listening(windows);
    const { client } = clientWith(windows);
    await expect(client.messages.send(text(WAPI))).resolves.toBeDefined();
    vi.setSystemTime(Date.now() + 24 * HOUR);
    await expect(client.messages.send(text(WAPI))).rejects.toMatchObject({ code: 'window' });
  });

  it('a time that is not one (NaN, a string) is refused naming the field, and never poisons a chat', async () => {
    const windows = await knownWindows();
    await expect(windows.observeInbound(WAPI, CHAT, Number.NaN)).rejects.toMatchObject({
      name: 'GatewayValidationError',
      issues: [{ path: ['at'] }],
    });
    expect(() => new ConversationWindows({ heardSince: '2026-11-01' as never })).toThrow(/heardSince/);
    await windows.observeInbound(WAPI, CHAT); // the customer writes: the window opens
    const { client } = clientWith(windows);
    await expect(client.messages.send(text(WAPI))).resolves.toBeDefined();
  });

  it('a chat dropped from a full memory store counts as unknown until its window would have closed', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-01T12:00:00Z'), toFake: ['Date'] });
    const store = new MemoryWindowStore({ maxChats: 2 });
    const windows = await knownWindows({ store });
    await windows.observeInbound(WAPI, '79000000001', Date.now() - HOUR);
    await windows.observeInbound(WAPI, '79000000002', Date.now());
    await windows.observeInbound(WAPI, '79000000003', Date.now());
    expect(store.size).toBe(2);
    const { client } = clientWith(windows);
    await expect(client.messages.send(text(WAPI, '79000000001'))).resolves.toBeDefined(); // dropped
    await expect(client.messages.send(text(WAPI, '79000000009'))).resolves.toBeDefined(); // never wrote
    vi.setSystemTime(Date.now() + 23 * HOUR + 1);
    await expect(client.messages.send(text(WAPI, '79000000001'))).rejects.toMatchObject({ code: 'window' });
    await expect(client.messages.send(text(WAPI, '79000000002'))).resolves.toBeDefined(); // still open
  });

  it('a tier in a channel webhook never turns a channel the client read as whatsapp into wapi', async () => {
    // The channel resource lists a tier for every channel; a webhook's tier says wapi only when
    // nothing stated the transport.
    const windows = await knownWindows();
    const deliver = listening(windows);
    const { client, requests } = clientWith(windows);
    await deliver(
      buildWebhook('v3.channelsUpdates', {
        channelsUpdates: [{ channelId: PLAIN, state: 'active', tier: 'TIER_1K' }],
      }),
    );
    await deliver(
      buildWebhook('channel.waba_tier_update', { data: [{ channel_id: PLAIN, tier: 'TIER_1K' }] }),
    );
    expect((await windows.get(PLAIN, CHAT)).transport).toBe('whatsapp');
    await expect(client.messages.send(text(PLAIN))).resolves.toBeDefined();
    expect(requests()).toBe(1);
  });

  it.each([
    ['rejects', () => Promise.reject(new Error('connection reset'))],
    [
      'throws at once',
      () => {
        throw new Error('store closed');
      },
    ],
  ])(
    'a store that cannot be read (%s) fails the send as never sent and retryable, not refused',
    async (_, read) => {
      const store = new MemoryWindowStore();
      const broken: WindowStore = Object.assign(Object.create(store), { read });
      const windows = new ConversationWindows({ store: broken, heardSince: 0 });
      await windows.learnChannels([{ channel_id: WAPI, transport: 'wapi' }]);
      const { client, requests } = clientWith(windows);
      const error = await client.messages.send(text(WAPI)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayError);
      expect(error).not.toBeInstanceOf(ConversationWindowError);
      expect(error).toMatchObject({ requestSent: false, retryable: true });
      expect((error as Error).message).toMatch(
        /^Not sent: the conversation windows could not read the window/,
      );
      expect(requests()).toBe(0);
    },
  );
});

describe('ConversationWindows: the tier', () => {
  it('TIER_0: 250 conversations in 24 hours; the 251st new chat is refused with code tier, a chat already in one is not', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-01T12:00:00Z'), toFake: ['Date'] });
    const windows = await knownWindows();
    const { client, requests } = clientWith(windows);
    for (let i = 0; i < 250; i++)
      await client.messages.send(template(`7900000${String(i).padStart(4, '0')}`));
    expect(await windows.conversationsToday(WAPI)).toEqual({ count: 250, tier: 'TIER_0', cap: 250 });
    const error = await client.messages.send(template('79009999999')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConversationWindowError);
    expect(error).toMatchObject({ code: 'tier', requestSent: false });
    expect((error as Error).message).toContain('TIER_0: 250');
    await expect(client.messages.send(template('79000000007'))).resolves.toBeDefined(); // its conversation is open
    await windows.observeInbound(WAPI, '79009999999');
    await expect(client.messages.send(template('79009999999'))).resolves.toBeDefined(); // the customer wrote: no new one
    expect(requests()).toBe(252);
    vi.setSystemTime(Date.now() + 24 * HOUR + 1);
    expect((await windows.conversationsToday(WAPI)).count).toBe(0);
    await expect(client.messages.send(template('79008888888'))).resolves.toBeDefined();
  });

  it('a template send the service never took gives its conversation back; one that may have reached it keeps it', async () => {
    const windows = await knownWindows();
    let answer = () => new Response(JSON.stringify({ error: 'bad_request' }), { status: 400 });
    const { client } = clientWith(windows, () => answer());
    await expect(client.messages.send(template('79001111111'))).rejects.toBeInstanceOf(GatewayError);
    expect((await windows.conversationsToday(WAPI)).count).toBe(0);
    answer = () => new Response('', { status: 502 });
    await expect(client.messages.send(template('79002222222'))).rejects.toBeInstanceOf(InternalServerError);
    expect((await windows.conversationsToday(WAPI)).count).toBe(1);
  });

  it('sendMany reports each refusal on its own item', async () => {
    const windows = await knownWindows();
    await windows.observeInbound(WAPI, '79001230000');
    const { client } = clientWith(windows);
    const results = await client.messages.sendMany([text(WAPI, '79001230000'), text(WAPI), template()]);
    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
    expect(results[1]).toMatchObject({ ok: false, error: { code: 'window', requestSent: false } });
  });
});

describe('GatewayClient({ windows })', () => {
  it('refuses an object that is not windows, naming the option', () => {
    expect(() => new GatewayClient({ baseUrl: 'http://gateway.test', windows: {} as never })).toThrow(
      /windows\.beforeSend/,
    );
  });

  it('clients derived with withOptions share the windows', async () => {
    const windows = await knownWindows();
    const { client } = clientWith(windows);
    const child = client.withOptions({ token: 'another-token' });
    await expect(child.messages.send(text(WAPI))).rejects.toBeInstanceOf(ConversationWindowError);
  });
});
