// DESIGN: Conversation windows, end to end over real HTTP: the fake gateway keeps the same windows
// as the service and fails what falls outside them; GatewayClient({ windows }) refuses those sends
// before they leave, and lets through what the fake delivers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConversationWindowError } from '../../src/core/errors.js';
import type { FakeGateway } from '../../src/testing.js';
import {
  fakeWithWindows,
  INSTA,
  type Instance,
  outcomeOf,
  sendsTo,
  startInstance,
  templateTo,
  textTo,
  WAPI,
} from '../support/windows-fleet.js';

const HOUR = 3_600_000;

let gateway: FakeGateway;
let crm: Instance;

beforeAll(async () => {
  gateway = await fakeWithWindows();
  crm = await startInstance(gateway);
  await crm.client.webhooks.ensure(crm.url, ['message.add', 'message.status_update']);
  await crm.client.channels.list(); // the windows learn each channel's transport and tier
});
afterAll(async () => {
  await gateway?.close();
  await crm?.close();
});

const outcome = (requestId: string) => outcomeOf(crm, requestId);

describe('conversation windows against the fake gateway', () => {
  it('a closed wapi window: refused before it leaves; the fake fails the same send with over_24_hour_limit', async () => {
    const before = sendsTo(gateway);
    const error = await crm.client.messages.send(textTo('79001110001')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConversationWindowError);
    expect(error).toMatchObject({ code: 'window', channelId: WAPI, requestSent: false });
    expect(sendsTo(gateway)).toBe(before);

    const { request_id } = await crm.bare.messages.send(textTo('79001110001'));
    expect(await outcome(request_id)).toBe('over_24_hour_limit');
  });

  it('a template is sent to the closed chat, and delivered', async () => {
    const { request_id } = await crm.client.messages.send(templateTo('79001110002'));
    expect(await outcome(request_id)).toBe('read');
    expect(await crm.windows.conversationsToday(WAPI)).toMatchObject({ count: 1, tier: 'TIER_0', cap: 250 });
  });

  it('an inbound message opens the window: the text is sent and delivered', async () => {
    await expect(crm.client.messages.send(textTo('79001110003'))).rejects.toBeInstanceOf(
      ConversationWindowError,
    );
    await gateway.simulate.inbound({ channel_id: WAPI, chat_id: '79001110003', text: 'Where is my order?' });
    const window = await crm.windows.get(WAPI, '79001110003');
    expect(window).toMatchObject({ transport: 'wapi', open: true });
    expect((window.closesAt ?? 0) - Date.now()).toBeGreaterThan(23 * HOUR);
    const { request_id } = await crm.client.messages.send(textTo('79001110003'));
    expect(await outcome(request_id)).toBe('read');
  });

  it('a message written 25 hours ago leaves the window closed, for both', async () => {
    const timestamp = Date.now() - 25 * HOUR;
    await gateway.simulate.inbound({ channel_id: WAPI, chat_id: '79001110004', text: 'Hello?', timestamp });
    expect(await crm.windows.get(WAPI, '79001110004')).toEqual({
      transport: 'wapi',
      open: false,
      lastInboundAt: timestamp,
    });
    const error = await crm.client.messages.send(textTo('79001110004')).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'window',
      lastInboundAt: timestamp,
      closedAt: timestamp + 24 * HOUR,
    });
    const { request_id } = await crm.bare.messages.send(textTo('79001110004'));
    expect(await outcome(request_id)).toBe('over_24_hour_limit');
  });

  it('instagram: 7 days; outside it the fake fails with messages_not_text_first', async () => {
    const chat = 'shop.customer';
    await gateway.simulate.inbound({
      channel_id: INSTA,
      chat_id: chat,
      chat_type: 'instagram',
      timestamp: Date.now() - 6 * 24 * HOUR,
    });
    const { request_id } = await crm.client.messages.send(textTo(chat, INSTA));
    expect(await outcome(request_id)).toBe('read');
    await expect(crm.client.messages.send(textTo('never.wrote', INSTA))).rejects.toMatchObject({
      code: 'window',
    });
    const failed = await crm.bare.messages.send(textTo('never.wrote', INSTA));
    expect(await outcome(failed.request_id)).toBe('messages_not_text_first');
  });

  // 250 sends, each delivered with its statuses: seconds on a busy machine (the time-out a safety net).
  it('the tier: TIER_0 starts 250 conversations a day; the SDK refuses the next, the fake fails it', {
    timeout: 120_000,
  }, async () => {
    const started = (await crm.windows.conversationsToday(WAPI)).count;
    const chats = Array.from({ length: 250 - started }, (_, i) => `7902${String(i).padStart(7, '0')}`);
    const results = await crm.client.messages.sendMany(chats.map(templateTo), { concurrency: 8 });
    expect(results.every((r) => r.ok)).toBe(true);
    expect(await crm.windows.conversationsToday(WAPI)).toMatchObject({ count: 250, cap: 250 });

    const error = await crm.client.messages.send(templateTo('79039999999')).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'tier', requestSent: false });
    await expect(crm.client.messages.send(templateTo(chats[0] as string))).resolves.toBeDefined(); // open already
    const { request_id } = await crm.bare.messages.send(templateTo('79039999999'));
    expect(await outcome(request_id)).toBe('over_24_hour_limit');
  });
});
