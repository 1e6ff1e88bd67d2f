import { describe, expect, it } from 'vitest';
import { buildWebhook, DELIVERY_KINDS, type DeliveryKind } from '../../src/testing.js';
import { parseWebhook, safeParseWebhook } from '../../src/webhooks/decode/parse.js';

/** The decoded kind of a body: the v2 event, or `v3.` and the v3 type. */
function decodedKind(body: unknown): string {
  const webhook = parseWebhook(body as object);
  return webhook.api === 'v2' ? webhook.event : `v3.${webhook.type}`;
}

const V3_TYPE: Record<string, string> = {
  'v3.messages': 'v3.messagesAndStatuses',
  'v3.statuses': 'v3.messagesAndStatuses',
};

describe('buildWebhook: a valid delivery of every kind', () => {
  it('covers the 16 v2 event kinds and the 8 v3 kinds', () => {
    expect(DELIVERY_KINDS.filter((k) => !k.startsWith('v3.'))).toHaveLength(16);
    expect(DELIVERY_KINDS.filter((k) => k.startsWith('v3.'))).toHaveLength(8);
  });

  // This test catches drift: a schema change that the default table does not follow fails here.
  for (const kind of DELIVERY_KINDS) {
    it(`parseWebhook decodes a built ${kind} as ${kind}, from the object and from its JSON text`, () => {
      const body = buildWebhook(kind);
      expect(decodedKind(body)).toBe(V3_TYPE[kind] ?? kind);
      expect(decodedKind(JSON.stringify(body))).toBe(V3_TYPE[kind] ?? kind);
    });
  }

  it('fills items of v3 messages and statuses as their kind says', () => {
    const w = parseWebhook(buildWebhook('v3.messagesAndStatuses'));
    expect(w).toMatchObject({ api: 'v3', type: 'messagesAndStatuses' });
    if (w.api !== 'v3' || w.type !== 'messagesAndStatuses') throw new Error('narrowing');
    expect([w.messages.length, w.statuses.length]).toEqual([1, 1]);
    expect(buildWebhook('v3.statuses')).not.toHaveProperty('messages');
  });
});

describe('buildWebhook: overrides are deep-merged', () => {
  it('changes one field of the default item and keeps the rest', () => {
    const body = buildWebhook('message.status_update', { data: [{ request_id: 'req-1', status: 'read' }] });
    expect(body.data).toHaveLength(1);
    expect(body.data[0]).toMatchObject({ request_id: 'req-1', status: 'read', reason: null });
    expect(typeof body.data[0]?.message_id).toBe('string');
  });

  it('merges nested objects: recipient.name changes, recipient.chat_type stays', () => {
    const body = buildWebhook('message.add', { data: [{ recipient: { name: 'Bob' } }] });
    expect(body.data[0]?.recipient).toMatchObject({ name: 'Bob', chat_type: 'whatsapp' });
  });

  it('makes as many items as the override lists, each with ids of its own', () => {
    const body = buildWebhook('message.add', { data: [{ text: 'one' }, { text: 'two' }, {}] });
    expect(body.data.map((m) => m.text)).toEqual(['one', 'two', 'Hello']);
    expect(new Set(body.data.map((m) => m.message_id)).size).toBe(3);
  });

  it('sets envelope fields and single v3 objects', () => {
    expect(buildWebhook('channel.create', { meta: { idempotency_key: 'k-1' } }).meta.idempotency_key).toBe(
      'k-1',
    );
    expect(buildWebhook('v3.createContact', { createContact: { name: 'Zoe' } }).createContact).toMatchObject({
      name: 'Zoe',
      source: 'auto',
    });
  });

  it('null clears a field; an override that breaks the spec makes a body that does not decode (the check can fail)', () => {
    expect(buildWebhook('message.add', { data: [{ crm_user_id: null }] }).data[0]?.crm_user_id).toBeNull();
    const broken = buildWebhook('message.add', { data: [{ recipient: null }] });
    expect(safeParseWebhook(broken).success).toBe(false);
  });

  it('refuses a kind it does not know', () => {
    expect(() => buildWebhook('message.nope' as DeliveryKind)).toThrow(/unknown kind/);
  });

  it('takes an override nested 100,000 levels deep without overflowing the stack (v2 and v3 items)', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    /** How many arrays the value nests, and what is inside the innermost, read without recursion. */
    const unwrapped = (value: unknown) => {
      let levels = 0;
      for (; Array.isArray(value); levels++) value = value[0];
      return { levels, leaf: value };
    };
    const v2 = buildWebhook('message.add', { data: [deep] } as never);
    expect(unwrapped(v2.data[0])).toEqual({ levels: 100_000, leaf: 'leaf' });
    const v3 = buildWebhook('v3.messages', { messages: [deep] } as never);
    expect(unwrapped(v3.messages[0])).toEqual({ levels: 100_000, leaf: 'leaf' });
  });

  it('keeps a "__proto__" key of a parsed override as a field, never as the prototype', () => {
    const overrides = JSON.parse('{"__proto__":{"polluted":1},"data":[{"__proto__":{"polluted":2}}]}');
    const body = buildWebhook('message.add', overrides) as unknown as Record<string, unknown>;
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(Object.getPrototypeOf((body.data as object[])[0])).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(body))).toMatchObject(overrides);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('buildWebhook: deterministic with a seed', () => {
  it('gives the same body for the same seed, and other ids for another seed', () => {
    const a = buildWebhook('message.add', {}, { seed: 7 });
    expect(buildWebhook('message.add', {}, { seed: 7 })).toEqual(a);
    expect(buildWebhook('message.add', {}, { seed: 'seven' }).meta.idempotency_key).not.toBe(
      a.meta.idempotency_key,
    );
    expect(a.meta.idempotency_key).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(a.meta.timestamp).toBe(1_735_689_600); // 2025-01-01T00:00:00Z, seconds
  });

  it('gives random ids without a seed', () => {
    expect(buildWebhook('channel.create').meta.idempotency_key).not.toBe(
      buildWebhook('channel.create').meta.idempotency_key,
    );
  });
});
