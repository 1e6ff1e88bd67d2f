// What the fake delivers to a v3 address for a v2 status, over real HTTP on 127.0.0.1: a failed
// message's error code and a channel's state, each as the spec's v3 lists give them.
import { createFakeGateway, type FakeGateway } from 'messaging-gateway-sdk/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listen } from '../support/servers.js';

let gateway: FakeGateway;
let close: () => Promise<void>;
let bodies: Record<string, unknown>[];

beforeEach(async () => {
  gateway = await createFakeGateway({
    autoStatuses: false,
    stepMs: 1,
    channels: [
      { channel_id: 'ch', transport: 'whatsapp' },
      { channel_id: 'waba', transport: 'wapi' },
    ],
  });
  bodies = [];
  const receiver = await listen((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      bodies.push(JSON.parse(text));
      res.end('ok');
    });
  });
  close = receiver.close;
  const subscriptions = { messagesAndStatuses: true, channelsUpdates: true };
  const res = await fetch(`${gateway.url}/v3/webhooks`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${gateway.apiKey}` },
    body: JSON.stringify({ webhooksUri: `${receiver.url}/v3`, subscriptions }),
  });
  expect(res.status).toBe(200);
});
afterEach(async () => {
  await gateway.close();
  await close();
});

async function sent(body: object = { text: 'Hi' }) {
  const res = await fetch(`${gateway.url}/v2/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.token}` },
    body: JSON.stringify({
      channel_id: 'ch',
      recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
      ...body,
    }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { request_id: string } }).data.request_id;
}

/** The v3 error of the `statuses` item a failure with `reason` was delivered as. */
async function v3Error(reason: string, body?: object) {
  bodies.length = 0;
  await gateway.simulate.status(await sent(body), 'failed', reason);
  const statuses = bodies.flatMap((b) => (b.statuses ?? []) as { status: string; error?: unknown }[]);
  expect(statuses).toHaveLength(1);
  expect(statuses[0]?.status).toBe('error');
  return statuses[0]?.error as { error: string; description: string };
}

describe('a failed message, to a v3 address', () => {
  it.each([
    ['bad_contact', 'BAD_CONTACT'],
    ['contact_can_not_create', 'BAD_CONTACT'],
    ['text_length_is_too_much', 'TOO_LONG_TEXT'],
    ['is_spam', 'SPAM'],
    ['to_many_requests', 'TOO_MANY_EXT_REQS'],
    ['bad_content', 'WRONG_CONTENT'],
    ['canceled', 'MESSAGE_CANCELLED'],
    ['over_24_hour_limit', '24_HOURS_EXCEEDED'],
    ['messages_not_text_first', '7_DAYS_EXCEEDED'],
    ['unknown_error', 'UNKNOWN_ERROR'],
    // reasons the v3 list has no code of its own for
    ['network_error', 'GENERAL_ERROR'],
    ['chat_is_blocked', 'GENERAL_ERROR'],
    ['messages_not_text_first_', 'GENERAL_ERROR'],
    ['waba_rejected_by_marketing', 'GENERAL_ERROR'],
    // a reason the spec does not list
    ['something_new', 'UNKNOWN_ERROR'],
  ])('%s is %s, the reason kept as its description', async (reason, code) => {
    expect(await v3Error(reason)).toEqual({ error: code, description: reason });
  });

  it('bad_content of a file over 50 MB is TOO_BIG_CONTENT', async () => {
    const attachment = { url: 'https://files.example/big.mp4', size: 60 * 1024 * 1024 };
    expect((await v3Error('bad_content', { text: undefined, attachment })).error).toBe('TOO_BIG_CONTENT');
  });
});

describe("a channel's status, to a v3 address", () => {
  /** The v3 channelsUpdates item a v2 status of `channel` was delivered as (undefined: none). */
  async function v3State(status: 'active' | 'init' | 'disabled', reason: string | null, channel = 'ch') {
    bodies.length = 0;
    await gateway.simulate.channelStatus(channel, status, reason);
    const updates = bodies.flatMap((b) => (b.channelsUpdates ?? []) as Record<string, unknown>[]);
    expect(updates.length).toBeLessThanOrEqual(1);
    return updates[0];
  }

  it.each([
    ['active', null, 'active'],
    ['disabled', null, 'disabled'],
    ['disabled', 'blocked', 'disabled'],
    ['disabled', 'rejected', 'disabled'],
    // another phone scanned the QR: v3's remedy for it is unauthorized's, "authorize again"
    ['disabled', 'foreignphone', 'unauthorized'],
    ['disabled', 'not_enough_money', 'notEnoughMoney'],
    ['disabled', 'unauthorized', 'unauthorized'],
    ['disabled', 'openelsewhere', 'openElsewhere'],
    ['disabled', 'qridle', 'disabled'],
    ['init', 'qr', 'qr'],
  ] as const)('%s / %s is %s', async (status, reason, state) => {
    expect(await v3State(status, reason)).toMatchObject({
      channelId: 'ch',
      state,
      timestamp: expect.any(Number),
    });
  });

  it('says qridle when the QR expired', async () => {
    expect(await v3State('disabled', 'qridle')).toMatchObject({ qridle: 'qridle' });
  });

  it.each([
    ['init', 'wait_for_password'],
    ['init', null],
  ] as const)('%s / %s has no v3 state: nothing is delivered', async (status, reason) => {
    expect(await v3State(status, reason)).toBeUndefined();
  });

  it("carries a wapi channel's tier, and only a wapi channel's", async () => {
    expect(await v3State('active', null, 'waba')).toMatchObject({ state: 'active', tier: 'TIER_0' });
    expect(await v3State('active', null, 'ch')).not.toHaveProperty('tier');
  });
});
