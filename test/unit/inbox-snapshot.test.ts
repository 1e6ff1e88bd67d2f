// What the inbox page is sent: bounded, chats grouped, secrets of subscribed addresses masked.
import { describe, expect, it } from 'vitest';
import { maskedAddress } from '../../src/internal/address.js';
import { deliverySummary, preview } from '../../src/testing/inbox/log-lines.js';
import { inboxSnapshot, SNAPSHOT_LIMITS } from '../../src/testing/inbox/snapshot.js';
import { FakeState } from '../../src/testing/state.js';

const send = (state: FakeState, i: number, chat_id: string, text: string) =>
  state.addMessage({
    message_id: `m${i}`,
    request_id: `r${i}`,
    chat_id,
    channel_id: 'ch',
    status: 'sent',
    sentAt: i,
    body: { recipient: { chat_type: 'telegram' }, text },
  });

describe('the inbox snapshot', () => {
  it('groups messages sent and received by chat, oldest first', () => {
    const state = new FakeState(100);
    send(state, 1, 'a', 'first');
    state.addReceived({
      message_id: 'in',
      channel_id: 'ch',
      chat_id: 'a',
      chat_type: 'telegram',
      text: 'reply',
      receivedAt: 2,
    });
    send(state, 3, 'b', 'other chat');
    const { chats } = inboxSnapshot(state, [], []);
    expect(
      chats.map((c) => [c.chat_id, c.chat_type, c.messages.map((m) => `${m.direction}:${m.text}`)]),
    ).toEqual([
      ['a', 'telegram', ['out:first', 'in:reply']],
      ['b', 'telegram', ['out:other chat']],
    ]);
  });

  it(`holds the newest ${SNAPSHOT_LIMITS.messages} messages and ${SNAPSHOT_LIMITS.log} log lines, texts clipped`, () => {
    const state = new FakeState(10_000);
    for (let i = 0; i < SNAPSHOT_LIMITS.messages + 50; i++) send(state, i, 'a', 'x'.repeat(10_000));
    const requests = Array.from({ length: 300 }, (_, i) => ({
      method: 'GET',
      path: `/v2/${i}`,
      query: {},
      headers: { authorization: 'Bearer secret-token' },
      body: undefined,
      status: 200,
    }));
    const snapshot = inboxSnapshot(state, [], requests);
    const messages = snapshot.chats[0]?.messages ?? [];
    expect(messages).toHaveLength(SNAPSHOT_LIMITS.messages);
    expect(messages[0]?.message_id).toBe('m50');
    expect(messages[0]?.text).toHaveLength(SNAPSHOT_LIMITS.textChars);
    // the page says how many it does not show: the count is the chat's, not the window's
    expect(snapshot.chats[0]?.count).toBe(SNAPSHOT_LIMITS.messages + 50);
    expect(snapshot.requests).toHaveLength(SNAPSHOT_LIMITS.log);
    expect(snapshot.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v2/299', status: 200 });
    expect(JSON.stringify(snapshot)).not.toContain('secret-token');
  });

  it('bounds what the API let a caller choose: long chat ids and addresses, many subscriptions', () => {
    const state = new FakeState(10_000);
    const long = 'n'.repeat(100_000);
    send(state, 1, long, 'hi');
    for (let i = 0; i < 1000; i++) {
      state.subscriptions.set(`${i}`, { id: `${i}`, url: `http://h/${long}`, event: long });
    }
    const snapshot = inboxSnapshot(state, [], []);
    expect(snapshot.subscriptions).toHaveLength(SNAPSHOT_LIMITS.subscriptions);
    expect(snapshot.subscriptions.at(-1)?.id).toBe('999');
    expect(JSON.stringify(snapshot).length).toBeLessThan(
      3 * SNAPSHOT_LIMITS.subscriptions * SNAPSHOT_LIMITS.textChars,
    );
  });

  it.each([
    ['http://127.0.0.1:1/hooks?secret=s3&crm=k&flag', 'http://127.0.0.1:1/hooks?secret=…&crm=…&flag=…'],
    ['http://127.0.0.1:1/hooks', 'http://127.0.0.1:1/hooks'],
    // basic auth in a subscribed URL is a secret too
    ['https://crm:pa55@crm.example/hooks?secret=s3', 'https://…@crm.example/hooks?secret=…'],
    ['https://crm.example/a@b', 'https://crm.example/a@b'],
  ])('maskedAddress(%s) is %s', (address, shown) => {
    expect(maskedAddress(address)).toBe(shown);
  });

  it('shows no query value, user or password of a subscribed address', () => {
    const state = new FakeState(10);
    state.subscriptions.set('1', { id: '1', url: 'http://h/x?secret=s3', event: 'message.add' });
    state.subscriptions.set('2', { id: '2', url: 'http://user:pa55@h/x', event: 'message.add' });
    state.v3Settings.webhooksUri = 'http://user:k9@h/v3?key=q7';
    const json = JSON.stringify(inboxSnapshot(state, [], []));
    for (const secret of ['s3', 'pa55', 'k9', 'q7']) expect(json).not.toContain(secret);
  });
});

describe("the log's lines", () => {
  const state = new FakeState(100);
  send(state, 1, '79001234567', 'Your order #1042 is ready');
  state.addChannel('whatsapp', 'ch-9').name = 'Main number';
  const v2 = (event: string, ...data: object[]) => ({ event, data });

  it.each([
    [
      v2('message.status_update', { message_id: 'm1', status: 'delivered' }),
      'delivered · "Your order #1042…"',
    ],
    [
      v2('message.status_update', { message_id: 'm1', status: 'failed', reason: 'bad_contact' }),
      'failed (bad_contact) · "Your order #1042…"',
    ],
    [v2('message.add', { direction: 'outbound', text: 'Hi' }), 'outbound · "Hi"'],
    [v2('message.add', { direction: 'inbound', attachment: { url: 'u' } }), 'inbound · [attachment]'],
    [v2('message.add', { direction: 'inbound', text: 'a\n\nb' }, {}, {}), 'inbound · "a b" · +2 more'],
    [
      v2('channel.status_update', { channel_id: 'ch-9', status: 'disabled', reason: 'qridle' }),
      'disabled (qridle) · Main number',
    ],
    [v2('channel.qr_update', { channel_id: 'ch-9' }), 'QR · Main number'],
    [v2('crm_entities.contact_add', { name: 'Alice' }), '"Alice"'],
    [v2('group_chat.update', { group_id: 'g' }), ''],
    [
      { statuses: [{ messageId: 'm1', status: 'error', error: { error: 'BAD_CONTACT' } }] },
      'error (BAD_CONTACT) · "Your order #1042…"',
    ],
    [
      { messages: [{ isEcho: false, text: 'Hello there' }], statuses: [{ status: 'read' }] },
      'inbound · "Hello there" · read',
    ],
    [{ channelsUpdates: [{ channelId: 'ch-9', state: 'active' }] }, 'active · Main number'],
    [{ test: true }, ''],
  ])('%j says %s', (body, words) => {
    expect(deliverySummary(body, state)).toBe(words);
  });

  it('never shows a message text whole: a preview of 16 characters, on one line', () => {
    const long = `${'🙂'.repeat(20)}\n${'x'.repeat(1_000_000)}`;
    expect(preview(long)).toBe(`"${'🙂'.repeat(16)}…"`);
    expect(preview('exactly sixteen!')).toBe('"exactly sixteen!"');
    expect(preview(42)).toBe('');
  });

  it('carries the verdict on a CRM reply and why a delivery got no answer', () => {
    const body = { event: 'crm_entities.contact_add', data: [{ name: 'Alice' }] };
    const records = [
      {
        api: 'v2',
        kind: 'x',
        url: 'http://h/?secret=s',
        body,
        status: 200,
        repeat: false,
        reply: { valid: false, issues: ['id: a non-empty string is required'] },
      },
      { api: 'v2', kind: 'x', url: 'http://h/', body, status: 0, repeat: false, failure: 'dropped' },
    ] as const;
    const { deliveries } = inboxSnapshot(state, records as never, []);
    expect(deliveries.map((d) => [d.status, d.failure, d.replyIssues, d.url])).toEqual([
      [200, null, ['id: a non-empty string is required'], 'http://h/?secret=…'],
      [0, 'dropped', null, 'http://h/'],
    ]);
  });
});
