// Deliveries the spec allows that the decoder used to refuse or drop: each decoded, and each
// taken through the handler to its listeners.
import { describe, expect, it, vi } from 'vitest';
import { isFailureReason } from '../../src/schemas/reasons.js';
import { isInbound, isOutbound } from '../../src/webhooks/decode/guards.js';
import { parseWebhook } from '../../src/webhooks/decode/parse.js';
import { post } from '../support/deliveries.js';
import { fixture } from '../support/fixtures.js';
import { collecting, HOOK_URL } from '../support/handler.js';

const deliver = async (body: unknown, options: Parameters<typeof collecting>[0] = {}) => {
  const { hooks, errors } = collecting({ dispatch: 'await', ...options });
  const seen: [string, unknown][] = [];
  for (const name of [
    'webhook',
    'v3.channelsUpdates',
    'v3.templateStatus',
    'v3.messagesAndStatuses',
    'v3.unknown',
    'message.add',
    'v3.createContact',
  ] as const) {
    hooks.on(name, (w: unknown, _context: unknown) => void seen.push([name, w]));
  }
  hooks.respond('v3.createContact', () => ({ id: 'c-1' }));
  hooks.respond('crm_entities.contact_add', () => ({ id: 'c-1', name: 'A' }));
  const answer = await hooks.handle(post(JSON.stringify(body), HOOK_URL));
  return { answer, seen, errors };
};

describe('A channelsUpdates item without state (a lone qridle update)', () => {
  const body = { channelsUpdates: [{ channelId: 'ch-1', qridle: 'true' }] };
  it('decodes, its state missing', () => {
    expect(parseWebhook(body)).toMatchObject({
      type: 'channelsUpdates',
      channelsUpdates: [{ channelId: 'ch-1', qridle: 'true' }],
      rejected: [],
    });
  });
  it('reaches the v3.channelsUpdates listener', async () => {
    const { answer, seen } = await deliver(body);
    expect(answer.status).toBe(200);
    expect(seen.map(([name]) => name)).toEqual(['v3.channelsUpdates', 'webhook']);
  });
});

describe('A v3 body of several kinds', () => {
  it('two kinds other than messages+statuses: both decoded, each kind’s listeners called', async () => {
    const body = {
      channelsUpdates: [{ channelId: 'ch-1', state: 'active' }],
      templateStatus: { templateGuid: 't-1', status: 'APPROVED' },
    };
    const { answer, seen } = await deliver(body);
    expect(answer.status).toBe(200);
    expect(seen.map(([name]) => name).sort()).toEqual(['v3.channelsUpdates', 'v3.templateStatus', 'webhook']);
    const whole = seen.find(([name]) => name === 'webhook')?.[1] as { also: unknown[] };
    expect(whole.also).toHaveLength(1);
  });

  it('a new kind beside a known one is kept and reaches the webhook listener', async () => {
    const body = { channelsUpdates: [{ channelId: 'ch-1', state: 'qr' }], paymentsUpdates: [{ id: 1 }] };
    const decoded = parseWebhook(body);
    expect(decoded).toMatchObject({
      type: 'channelsUpdates',
      also: [{ type: 'unknown', unknownKinds: ['paymentsUpdates'], body: { paymentsUpdates: [{ id: 1 }] } }],
    });
    const { seen } = await deliver(body);
    expect(seen.map(([name]) => name).sort()).toEqual(['v3.channelsUpdates', 'v3.unknown', 'webhook']);
  });

  it('a CRM request beside messages leads, so its reply is sent', async () => {
    const body = {
      messages: [(fixture('v3', 'messages--inbound-text') as { messages: unknown[] }).messages[0]],
      createContact: { name: 'A' },
    };
    const { answer } = await deliver(body);
    expect([answer.status, JSON.parse(answer.body)]).toEqual([200, { id: 'c-1' }]);
  });

  it('a kind that does not decode is listed in rejected and never sinks the other', async () => {
    const body = {
      channelsUpdates: [{ state: 'qr' }],
      templateStatus: { templateGuid: 't-1', status: 'PENDING' },
    };
    const decoded = parseWebhook(body);
    expect(decoded).toMatchObject({ type: 'templateStatus', rejected: [{ list: 'channelsUpdates' }] });
    const { answer, errors } = await deliver(body);
    expect(answer.status).toBe(200);
    expect(errors.length).toBeGreaterThan(0); // the rejected kind is reported with its raw value
  });
});

describe('A CRM request whose contact chat lacks chat_type', () => {
  it('v2 contact_add: decoded and answered, the chat kept as it came', async () => {
    const body = structuredClone(fixture('v2', 'crm_entities.contact_add')) as {
      data: { recipient: Record<string, unknown>[] }[];
    };
    for (const item of body.data) for (const chat of item.recipient) delete chat.chat_type;
    expect(parseWebhook(body)).toMatchObject({
      data: [{ recipient: [{ chat_id: '79001234567' }] }],
      rejected: [],
    });
    const { answer } = await deliver(body);
    expect([answer.status, JSON.parse(answer.body).id]).toEqual([200, 'c-1']);
  });
  it('v3 createContact: decoded and answered', async () => {
    const { answer } = await deliver({
      createContact: { name: 'A', contactData: [{ chatId: '79990000000' }] },
    });
    expect(answer.status).toBe(200);
  });
});

describe('A v2 delivery without meta.timestamp, or without meta', () => {
  const bare = structuredClone(fixture('v2', 'message.add--inbound-whatsapp-text')) as Record<
    string,
    unknown
  >;
  it('decodes without timestamp, and without meta (processed without dedupe)', async () => {
    const noTimestamp = { ...bare, meta: { idempotency_key: 'k-1' } };
    expect(parseWebhook(noTimestamp)).toMatchObject({ api: 'v2', meta: { idempotency_key: 'k-1' } });
    const noMeta = { ...bare, meta: undefined };
    expect(parseWebhook(noMeta)).toMatchObject({ api: 'v2', event: 'message.add', meta: {} });
    expect((await deliver(noTimestamp)).answer.status).toBe(200);
    const { answer, seen } = await deliver(noMeta);
    expect(answer.status).toBe(200);
    expect(seen.map(([name]) => name)).toContain('message.add');
  });
});

describe('Helpers agree with the data', () => {
  it('isInbound is true for a v3 message with status inbound and no isEcho', () => {
    const message = { messageId: 'm', chatType: 'whatsapp', chatId: '1', status: 'inbound' } as never;
    expect([isInbound(message), isOutbound(message)]).toEqual([true, false]);
    const sent = { messageId: 'm', chatType: 'whatsapp', chatId: '1', status: 'sent' } as never;
    expect([isInbound(sent), isOutbound(sent)]).toEqual([false, true]);
  });

  it('reason prefixes are matched ignoring case, as whole reasons are', () => {
    expect(isFailureReason('WABA_REJECTED_BY_MARKETING')).toBe(true);
    const body = structuredClone(fixture('v2', 'message.status_update--failed-bad-contact')) as {
      data: { reason?: string }[];
    };
    (body.data[0] as { reason: string }).reason = 'WABA_Rejected_By_Marketing';
    const decoded = parseWebhook(body) as { data: { reason: string }[] };
    expect(decoded.data[0]?.reason).toBe('waba_rejected_by_marketing');
  });
});

vi.restoreAllMocks();
