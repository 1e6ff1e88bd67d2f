import { Session } from 'node:inspector/promises';
import { describe, expect, it } from 'vitest';
import { WebhookParseError } from '../../src/core/errors.js';
import { parseV3Webhook, parseWebhook, safeParseWebhook } from '../../src/webhooks/decode/parse.js';
import { fixture, fixtures } from '../support/fixtures.js';

/** Bytes allocated on the JS heap while `fn` runs (V8's sampling heap profiler, garbage included). */
async function sampledAllocation(fn: () => void): Promise<number> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 1024,
      includeObjectsCollectedByMinorGC: true,
      includeObjectsCollectedByMajorGC: true,
    });
    fn();
    const { profile } = await session.post('HeapProfiler.stopSampling');
    let total = 0;
    const walk = (node: { selfSize: number; children: unknown[] }) => {
      total += node.selfSize;
      for (const child of node.children) walk(child as typeof node);
    };
    walk(profile.head as unknown as { selfSize: number; children: unknown[] });
    return total;
  } finally {
    session.disconnect();
  }
}

type Body = { event?: string; data: unknown[]; meta?: unknown } & Record<string, unknown>;

/** A v2 fixture with `bad` items inserted after its first item. */
function withBad(name: string, ...bad: unknown[]): Body {
  const body = structuredClone(fixture('v2', name)) as Body;
  body.data = [body.data[0], ...bad];
  return body;
}

describe('Requiredness from identity: the public samples decode', () => {
  it('a v2 message.add without status (an outbound echo)', () => {
    const w = parseWebhook(fixture('v2', 'message.add--sample-outbound-echo-without-status') as object);
    if (w.api !== 'v2' || w.event !== 'message.add') throw new Error('narrowing');
    expect(w.data[0]?.status).toBeUndefined();
    expect(w.data[0]?.direction).toBe('outbound');
    expect(w.rejected).toEqual([]);
  });

  it('a telegroup message with a numeric phone, decoded to its string', () => {
    const w = parseWebhook(
      fixture('v2', 'message.add--sample-telegroup-numeric-phone-without-status') as object,
    );
    if (w.api !== 'v2' || w.event !== 'message.add') throw new Error('narrowing');
    expect(w.data[0]?.recipient.phone).toBe('79007654321');
    expect(w.data[0]?.sender?.phone).toBe('79007654321');
  });

  it('v3 edited and deleted messages carrying only messageId, chatType, chatId and the edit fields', () => {
    const edited = parseV3Webhook(fixture('v3', 'messages--sample-edited-only-edit-fields') as object);
    const deleted = parseV3Webhook(fixture('v3', 'messages--sample-deleted-only-edit-fields') as object);
    expect(edited).toMatchObject({ messages: [{ isEdited: true, oldInfo: { oldText: 'See you at 10' } }] });
    expect(deleted).toMatchObject({ messages: [{ isDeleted: true, chatType: 'whatsapp' }], rejected: [] });
  });

  it('still rejects an item without what identifies it', () => {
    const r = safeParseWebhook({ messages: [{ messageId: 'm', chatType: 'telegram' }] });
    expect(r.success === false && r.error.issues).toEqual([
      { path: ['messages', 0, 'chatId'], message: 'expected a string or a number, got missing' },
    ]);
  });

  it('a status update needs message_id or request_id', () => {
    const body = withBad('message.status_update--delivered', { status: 'read' });
    const w = parseWebhook(body);
    expect(w.rejected).toMatchObject([
      {
        index: 1,
        issues: [
          { path: ['data', 1, 'message_id'], message: 'expected message_id or request_id, got neither' },
        ],
      },
    ]);
  });
});

describe('Per-item decoding: one bad item never sinks the others', () => {
  // An item of the wrong JSON type is bad for every kind, including those with no required field.
  const v2Lists = [
    'message.add--inbound-whatsapp-text',
    'message.status_update--delivered',
    'message.delete',
    'message.edit',
    'waba_template.status_update',
    'channel.status_update--init-wait-for-password',
    'channel.create',
    'channel.delete',
    'channel.qr_update',
    'channel.waba_tier_update',
    'group_chat.memberships_update',
    'crm_entities.contact_add',
    'crm_entities.deal_add',
  ];
  for (const name of v2Lists) {
    it(`v2 ${name.split('--')[0]}: keeps the good item, lists the bad ones with index, issues and raw`, () => {
      const w = parseWebhook(JSON.stringify(withBad(name, 'not an object', 42)));
      expect(w.api === 'v2' && w.data).toHaveLength(1);
      expect(w.rejected).toEqual([
        {
          list: 'data',
          index: 1,
          raw: 'not an object',
          issues: [{ path: ['data', 1], message: 'expected an object, got a string' }],
        },
        {
          list: 'data',
          index: 2,
          raw: 42,
          issues: [{ path: ['data', 2], message: 'expected an object, got a number' }],
        },
      ]);
    });
  }

  for (const [name, list] of [
    ['messages--inbound-text', 'messages'],
    ['statuses--delivered-and-error', 'statuses'],
    ['channelsUpdates--qr-and-tier', 'channelsUpdates'],
  ] as const) {
    it(`v3 ${list}: keeps the good items, lists the bad ones`, () => {
      const body = structuredClone(fixture('v3', name)) as Record<string, unknown[]>;
      const good = body[list]?.length ?? 0;
      body[list] = [...(body[list] ?? []), {}, null];
      const w = parseV3Webhook(body);
      expect((w as unknown as Record<string, unknown[]>)[list]).toHaveLength(good);
      expect(w.rejected.map((r) => [r.list, r.index, r.raw])).toEqual([
        [list, good, {}],
        [list, good + 1, null],
      ]);
    });
  }

  it('messages and statuses in one body: each list keeps its own items and indexes', () => {
    const w = parseV3Webhook({ messages: [{}], statuses: [{ messageId: 'm', status: 'read' }] });
    expect(w).toMatchObject({
      messages: [],
      statuses: [{ messageId: 'm' }],
      rejected: [{ list: 'messages', index: 0 }],
    });
  });

  it('a body none of whose items decode is a WebhookParseError; an empty list is not', () => {
    const r = safeParseWebhook(JSON.stringify({ ...withBad('channel.create', 1), data: [1, 2] }));
    expect(r.success).toBe(false);
    expect(parseWebhook({ ...withBad('channel.create'), data: [] })).toMatchObject({
      data: [],
      rejected: [],
    });
  });
});

describe('Issue messages name the path, what was expected and what came, never a value', () => {
  it('says missing, a number, an object, an array, null', () => {
    const body = withBad('message.add--inbound-whatsapp-text', {
      channel_id: 'c',
      direction: 7,
      recipient: { chat_type: [] },
      text: { secret: '79001234567' },
    });
    const [rejected] = parseWebhook(body).rejected;
    expect(rejected?.issues).toEqual([
      { path: ['data', 1, 'message_id'], message: 'expected a string or a number, got missing' },
      { path: ['data', 1, 'direction'], message: 'expected a string, got a number' },
      { path: ['data', 1, 'recipient', 'chat_type'], message: 'expected a string, got an array' },
      { path: ['data', 1, 'text'], message: 'expected a string or a number, got an object' },
    ]);
  });

  it('carries no value of the delivery in any message', () => {
    const phone = '79001234567';
    const r = safeParseWebhook({
      event: 'message.add',
      data: [{ message_id: phone, recipient: phone }],
      meta: { idempotency_key: 'k', timestamp: 1 },
    });
    if (r.success) throw new Error('expected a failure');
    expect(r.error.message).not.toContain(phone);
    expect(JSON.stringify(r.error.issues)).not.toContain(phone);
  });
});

describe('Cost bounded by the input', () => {
  const meta = { idempotency_key: 'k', timestamp: 1 };

  it('keeps at most 100 issues and counts the rest', () => {
    const body = JSON.stringify({
      event: 'message.add',
      data: Array.from({ length: 200_000 }, () => ({})),
      meta,
    });
    const r = safeParseWebhook(body);
    if (r.success) throw new Error('expected a failure');
    expect(r.error).toBeInstanceOf(WebhookParseError);
    expect(r.error.issues.length).toBeLessThanOrEqual(100);
    expect(r.error.omitted).toBeGreaterThan(199_000);
    expect(r.error.message).toMatch(/more rejected items, not listed/);
  });

  it('a good item among many bad ones: every bad one is listed, issues only for the first', () => {
    const w = parseWebhook({
      event: 'channel.create',
      data: [{ channel_id: 'c' }, ...Array.from({ length: 500 }, () => ({}))],
      meta,
    });
    expect(w.rejected).toHaveLength(500);
    expect(w.rejected.reduce((n, r) => n + r.issues.length, 0)).toBe(100);
  });

  it('refuses a flood of bad items without allocating per item, after real deliveries taught the decoders their shapes', async () => {
    // Each young-generation collection during a flood copies the live parsed body: a few bytes
    // per item cost more than the decoding. A closure over the decoded value once made every
    // call allocate a context (~40 bytes) as soon as the decoder had seen varied items.
    for (const [, text] of [...fixtures('v2'), ...fixtures('v3')])
      for (let i = 0; i < 300; i++) safeParseWebhook(text);
    const body = JSON.stringify({
      event: 'message.add',
      data: Array.from({ length: 200_000 }, () => ({})),
      meta,
    });
    const parsing = await sampledAllocation(() => {
      for (let i = 0; i < 3; i++) JSON.parse(body);
    });
    const refusing = await sampledAllocation(() => {
      for (let i = 0; i < 3; i++) expect(safeParseWebhook(body).success).toBe(false);
    });
    // Beyond the parse: the 100 explained items, a few hundred kB; 40 bytes per item would be
    // 24 MB more.
    expect(refusing - parsing).toBeLessThan(4_000_000);
  });

  it('20,000 malformed v3 messages do not overflow the stack', () => {
    const messages = Array.from({ length: 20_000 }, (_, i) => ({
      messageId: i,
      chatType: 1,
      chatId: { deep: [] },
    }));
    const r = safeParseWebhook(JSON.stringify({ messages }));
    expect(r.success).toBe(false);
    if (!r.success) expect(r.error.issues.length).toBeLessThanOrEqual(100);
  });
});

describe('v3 kinds', () => {
  it('decodes a kind the SDK does not know to type unknown, keeping the body', () => {
    expect(parseWebhook({ paymentsUpdates: [{ id: 1 }] })).toEqual({
      api: 'v3',
      type: 'unknown',
      unknownKinds: ['paymentsUpdates'],
      body: { paymentsUpdates: [{ id: 1 }] },
      rejected: [],
    });
  });

  it('keeps two kinds in one body: the first leads, the other is in `also`, neither dropped', () => {
    const r = parseWebhook({
      channelsUpdates: [{ channelId: 'c1', state: 'active' }],
      templateStatus: { templateGuid: 't', status: 'APPROVED' },
    });
    expect(r).toMatchObject({
      api: 'v3',
      type: 'channelsUpdates',
      channelsUpdates: [{ channelId: 'c1', state: 'active' }],
      also: [
        { api: 'v3', type: 'templateStatus', templateStatus: { templateGuid: 't', status: 'APPROVED' } },
      ],
    });
  });
});

describe('v3 kind names', () => {
  it('keeps a kind named like an Object.prototype member (toString) beside a known one', () => {
    // `key in KINDS` took it for a known kind, and it was dropped without a trace.
    const r = parseWebhook(
      JSON.parse('{"messages":[],"statuses":[{"messageId":"m1","status":"read"}],"toString":[1]}'),
    );
    expect(r).toMatchObject({
      type: 'messagesAndStatuses',
      also: [{ type: 'unknown', unknownKinds: ['toString'], body: { toString: [1] } }],
    });
  });
});

describe('Failure reasons', () => {
  it('keeps a reason whose name the spec leaves open, and folds the case of known ones', () => {
    const body = withBad(
      'message.status_update--failed-bad-contact',
      {
        request_id: 'r2',
        status: 'FAILED',
        reason: 'waba_rejected_by_marketing_limit',
      },
      { request_id: 'r3', status: 'failed', reason: 'BAD_CONTACT' },
    );
    const w = parseWebhook(body);
    expect(w).toMatchObject({
      data: [{}, { status: 'failed', reason: 'waba_rejected_by_marketing_limit' }, { reason: 'bad_contact' }],
    });
  });
});

describe('The decoded webhook shares no object with a parsed body passed in', () => {
  it('on the fast path as on the lenient one', () => {
    const body = structuredClone(fixture('v2', 'message.add--inbound-whatsapp-text')) as Body;
    const w = parseWebhook(body);
    if (w.api !== 'v2' || w.event !== 'message.add') throw new Error('narrowing');
    expect(w.data[0]).toEqual(body.data[0]);
    expect(w.data[0]).not.toBe(body.data[0]);
    expect(w.data[0]?.recipient).not.toBe((body.data[0] as { recipient: object }).recipient);
  });
});
