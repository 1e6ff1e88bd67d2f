import { describe, expect, it } from 'vitest';
import { GatewayError, WebhookParseError } from '../../src/core/errors.js';
import { qrToPng } from '../../src/resources/channel-connect/qr-to-png.js';
import { isInbound, isOutbound } from '../../src/webhooks/decode/guards.js';
import {
  parseV2Webhook,
  parseV3Webhook,
  parseWebhook,
  safeParseWebhook,
} from '../../src/webhooks/decode/parse.js';
import { fixture, fixtures } from '../support/fixtures.js';

describe('Decoding: every v2 event kind of the spec', () => {
  for (const [name, text] of fixtures('v2')) {
    it(`decodes ${name}`, () => {
      const webhook = parseWebhook(text);
      expect(webhook.api).toBe('v2');
      if (webhook.api !== 'v2') return;
      const kind = name.split('--')[0] as string;
      if (kind.includes('.')) expect(webhook.event).toBe(kind);
      expect(Array.isArray(webhook.data)).toBe(true);
      expect(typeof webhook.meta.idempotency_key).toBe('string');
    });
  }

  it('keeps timestamps as they came: meta in seconds, payloads in milliseconds', () => {
    const w = parseWebhook(fixture('v2', 'message.add--inbound-whatsapp-text') as object);
    if (w.api !== 'v2' || w.event !== 'message.add') throw new Error('narrowing');
    expect(w.meta.timestamp).toBe(1763800000);
    expect(w.data[0]?.timestamp).toBe(1763800000123);
  });

  it('decodes an unknown event kind to a member of its own, keeping its name', () => {
    const w = parseWebhook(fixture('v2', 'unknown-event--kept-with-its-name') as object);
    expect(w).toMatchObject({
      api: 'v2',
      event: 'unknown',
      unknownEvent: 'payment.received',
      data: [{ amount: 100 }],
    });
  });

  it('reads a failed status with its reason', () => {
    const w = parseWebhook(fixture('v2', 'message.status_update--failed-bad-contact') as object);
    expect(w).toMatchObject({
      event: 'message.status_update',
      data: [{ status: 'failed', reason: 'bad_contact', message_id: null }],
    });
  });
});

describe('Decoding: structure checked, values tolerated', () => {
  const w = parseWebhook(fixture('v2', 'tolerance--numbers-case-nulls-extra-fields') as object);
  if (w.api !== 'v2' || w.event !== 'message.add') throw new Error('expected message.add');
  const message = w.data[0] as Record<string, unknown> & (typeof w.data)[number];

  it('decodes numbers where strings are documented to strings', () => {
    expect(message.message_id).toBe('123456');
    expect(message.chat_id).toBe('79001234567');
    expect(message.recipient.phone).toBe('79001234567');
    expect(message.recipient.profile_id).toBe('4242');
  });

  it('reads enumerations case-insensitively into the spec’s spelling', () => {
    expect(message.direction).toBe('inbound');
    expect(message.status).toBe('accepted');
  });

  it('accepts null optionals and ids that are not UUIDs', () => {
    expect(message.sender).toBeNull();
    expect(w.meta.idempotency_key).toBe('not-a-uuid-at-all');
  });

  it('keeps unknown fields and the cian chat type', () => {
    expect(message.future_field).toEqual([1, 2, 3]);
    expect(message.recipient.chat_type).toBe('cian');
    expect((message.recipient as Record<string, unknown>).brand_new_field).toEqual({ x: 1 });
    expect((w as unknown as Record<string, unknown>).extra_envelope_field).toBe('kept');
  });

  it('keeps enumeration values outside the spec’s list as they came', () => {
    const s = parseWebhook(fixture('v2', 'tolerance--unknown-status-and-reason') as object);
    expect(s).toMatchObject({ data: [{ status: 'queued_by_carrier', reason: 'some_future_reason' }] });
  });

  it('decodes samples’ extra fields: avatar and name in recipient, externalId in advert', () => {
    const a = parseWebhook(fixture('v2', 'message.add--inbound-whatsapp-text') as object);
    expect(a).toMatchObject({
      data: [{ recipient: { avatar: 'https://cdn.example/a.jpg', name: 'Alice' } }],
    });
    const b = parseWebhook(fixture('v2', 'message.add--avito-with-advert') as object);
    expect(b).toMatchObject({ data: [{ recipient: { advert: { externalId: 'ext-1', price: '15000' } } }] });
  });
});

describe('Decoding: every v3 payload kind of the spec', () => {
  const typeOf: Record<string, string> = {
    messages: 'messagesAndStatuses',
    statuses: 'messagesAndStatuses',
    'messages-and-statuses': 'messagesAndStatuses',
    createContact: 'createContact',
    createDeal: 'createDeal',
    channelsUpdates: 'channelsUpdates',
    templateStatus: 'templateStatus',
    'test-probe': 'test',
    tolerance: 'messagesAndStatuses',
    'unknown-kind': 'unknown',
  };
  for (const [name, text] of fixtures('v3')) {
    it(`decodes ${name}`, () => {
      const webhook = parseWebhook(text);
      expect(webhook).toMatchObject({ api: 'v3', type: typeOf[name.split('--')[0] as string] });
    });
  }

  it('keeps both arrays of a delivery with messages and statuses', () => {
    const w = parseV3Webhook(fixture('v3', 'messages-and-statuses--both-in-one-delivery') as object);
    if (w.type !== 'messagesAndStatuses') throw new Error('narrowing');
    expect(w.messages).toHaveLength(1);
    expect(w.statuses).toHaveLength(1);
  });

  it('gives an empty array for the absent half', () => {
    const w = parseV3Webhook(fixture('v3', 'statuses--edited-in-messenger') as object);
    expect(w).toMatchObject({ type: 'messagesAndStatuses', messages: [], statuses: [{ status: 'edited' }] });
  });

  it('reads an error item with its code and description, also for unknown codes', () => {
    const a = parseV3Webhook(fixture('v3', 'statuses--delivered-and-error') as object);
    expect(a).toMatchObject({
      statuses: [{}, { error: { error: 'BAD_CONTACT', description: 'Number not registered' } }],
    });
    const b = parseV3Webhook(fixture('v3', 'messages--error-with-unknown-code') as object);
    expect(b).toMatchObject({ messages: [{ error: { error: 'SOME_FUTURE_CODE' } }] });
  });

  it('decodes the { test: true } probe', () => {
    expect(parseWebhook('{"test":true}')).toEqual({ api: 'v3', type: 'test', test: true, rejected: [] });
  });

  it('reads "true"/"false" strings as booleans and enumerations in any case', () => {
    const w = parseV3Webhook(fixture('v3', 'tolerance--strings-for-booleans-and-case') as object);
    expect(w).toMatchObject({
      messages: [
        {
          messageId: '42',
          chatId: '79001234567',
          chatType: 'whatsapp',
          type: 'text',
          isEcho: false,
          status: 'inbound',
          sentFromApp: true,
          brandNew: 1,
        },
      ],
    });
  });
});

describe('Decoding: bad input gives WebhookParseError and nothing else', () => {
  for (const [name, text] of fixtures('invalid')) {
    it(`rejects ${name}, keeping the raw body`, () => {
      const result = safeParseWebhook(text);
      expect(result.success).toBe(false);
      if (result.success) return;
      expect(result.error).toBeInstanceOf(WebhookParseError);
      expect(result.error).toBeInstanceOf(GatewayError);
      expect(result.error.rawBody).toBe(text);
      expect(result.error.issues.length).toBeGreaterThan(0);
      expect(result.error.message).toMatch(/^Webhook body could not be decoded: /);
    });
  }

  it('names the field of each structural problem', () => {
    const r = safeParseWebhook(fixture('invalid', 'v2--message-add-without-recipient') as object);
    expect(r.success === false && r.error.issues.map((i) => i.path.join('.'))).toEqual(['data.0.recipient']);
    const s = safeParseWebhook(fixture('invalid', 'v3--message-without-chat-id') as object);
    expect(s.success === false && s.error.issues.map((i) => i.path.join('.'))).toEqual(['messages.0.chatId']);
  });

  it('parseWebhook throws the same error', () => {
    expect(() => parseWebhook('not json')).toThrow(WebhookParseError);
  });

  it('refuses a v3 body in parseV2Webhook and a v2 body in parseV3Webhook', () => {
    expect(() => parseV2Webhook('{"test":true}')).toThrow(WebhookParseError);
    expect(() => parseV3Webhook(JSON.stringify(fixture('v2', 'channel.create')))).toThrow(WebhookParseError);
  });

  it('reports an empty body and invalid UTF-8', () => {
    for (const empty of ['', ' \r\n\t', '\ufeff', '\ufeff  ']) {
      expect(safeParseWebhook(empty)).toMatchObject({
        success: false,
        error: { issues: [{ message: 'the body is empty' }], rawBody: empty },
      });
    }
    expect(safeParseWebhook(' {"a" ')).toMatchObject({
      success: false,
      error: { issues: [{ message: expect.stringMatching(/^the body is not JSON/) }] },
    });
    const bytes = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]);
    expect(safeParseWebhook(bytes)).toMatchObject({ success: false, error: { rawBody: bytes } });
  });
});

describe('Decoding: input forms', () => {
  const text = JSON.stringify(fixture('v2', 'channel.create'));
  it('takes a string, a Uint8Array, a Buffer, an ArrayBuffer and a parsed object alike', () => {
    const bytes = new TextEncoder().encode(text);
    const results = [text, bytes, Buffer.from(text), bytes.buffer, JSON.parse(text)].map((b) =>
      parseWebhook(b),
    );
    for (const r of results) expect(r).toEqual(results[0]);
  });
  it('skips a UTF-8 byte order mark', () => {
    expect(parseWebhook(`\uFEFF${text}`)).toEqual(parseWebhook(text));
  });
});

describe('Security: __proto__, constructor and prototype keys reach no prototype', () => {
  it('decodes a body carrying them without touching any prototype', () => {
    const body =
      '{"event":"message.delete","__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}},' +
      '"data":[{"message_id":"m","timestamp":1,"__proto__":{"polluted":3},"prototype":{"polluted":4}}],' +
      '"meta":{"idempotency_key":"k","timestamp":1,"__proto__":{"polluted":5}}}';
    const w = parseWebhook(body) as unknown as Record<string, Record<string, unknown>[]>;
    for (const object of [w, w.data?.[0], w.meta] as object[]) {
      expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
      expect((object as Record<string, unknown>).polluted).toBeUndefined();
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });
});

describe('Helpers', () => {
  it('qrToPng reads a data URL and bare base64 into PNG bytes', () => {
    const v2 = parseWebhook(fixture('v2', 'channel.qr_update') as object);
    if (v2.api !== 'v2' || v2.event !== 'channel.qr_update') throw new Error('narrowing');
    const qr = v2.data[0]!.qr_code;
    const png = qrToPng(qr);
    expect([...png.slice(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    const bare = qr.split(',')[1] as string;
    expect(qrToPng(bare)).toEqual(png);
  });

  it('qrToPng gives a clear error for anything else', () => {
    expect(() => qrToPng('')).toThrow(/empty/);
    expect(() => qrToPng('data:image/jpeg;base64,AAAA')).toThrow(/data:image\/png;base64/);
    expect(() => qrToPng('!!!not base64')).toThrow(/not valid base64/);
    expect(() => qrToPng(btoa('GIF89a....'))).toThrow(/not a PNG/);
  });

  it('isInbound tells the contact’s messages from echoes of your own, in v2 and v3', () => {
    const inbound = parseWebhook(fixture('v2', 'message.add--inbound-whatsapp-text') as object);
    const outbound = parseWebhook(fixture('v2', 'message.add--wapi-template-with-referral') as object);
    const echo = parseWebhook(fixture('v3', 'messages--echo-edited-with-old-info') as object);
    const v3in = parseWebhook(fixture('v3', 'messages--inbound-text') as object);
    if (inbound.api !== 'v2' || inbound.event !== 'message.add') throw new Error('narrowing');
    if (outbound.api !== 'v2' || outbound.event !== 'message.add') throw new Error('narrowing');
    if (echo.api !== 'v3' || echo.type !== 'messagesAndStatuses') throw new Error('narrowing');
    if (v3in.api !== 'v3' || v3in.type !== 'messagesAndStatuses') throw new Error('narrowing');
    expect(isInbound(inbound.data[0]!)).toBe(true);
    expect(isInbound(outbound.data[0]!)).toBe(false);
    expect(isOutbound(outbound.data[0]!)).toBe(true);
    expect(isInbound(echo.messages[0]!)).toBe(false);
    expect(isInbound(v3in.messages[0]!)).toBe(true);
  });
});
