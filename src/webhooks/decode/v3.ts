import type { Issue } from '../../core/errors.js';
import { isRecord } from '../../internal/is-record.js';
import type { V3Webhook } from '../../schemas/events-v3.js';
import { kindOf } from '../../schemas/lenient.js';
import { type Decoders, fastDecoders } from './decoders.js';
import { type Decoder, decodeItems, decodeOne, IssueBudget, Items } from './items.js';
import { type Decoded, nothingDecoded } from './v2.js';

// One property per kind (spec: API v3 webhook deliveries, 3); messages and statuses may share one.
const KINDS = {
  messages: 'messagesAndStatuses',
  statuses: 'messagesAndStatuses',
  createContact: 'createContact',
  createDeal: 'createDeal',
  channelsUpdates: 'channelsUpdates',
  templateStatus: 'templateStatus',
} as const;
type Kind = (typeof KINDS)[keyof typeof KINDS];
type Single = 'createContact' | 'createDeal' | 'templateStatus';

const fail = (path: (string | number)[], message: string): Decoded<never> => ({
  ok: false,
  issues: [{ path, message }],
});

/** Decodes one list of items (absent or null: empty), or says why it is not a list. */
function list(
  body: Record<string, unknown>,
  key: string,
  decoder: Decoder,
  budget: IssueBudget,
): Items<unknown> | Issue {
  const value = body[key];
  if (value == null) return decodeItems(decoder, [], key, budget);
  if (!Array.isArray(value)) return { path: [key], message: `expected an array, got ${kindOf(value)}` };
  return decodeItems(decoder, value, key, budget);
}

function decodeLists(
  kind: 'messagesAndStatuses' | 'channelsUpdates',
  body: Record<string, unknown>,
  d: Decoders,
): Decoded<V3Webhook> {
  const budget = new IssueBudget();
  const keys =
    kind === 'channelsUpdates' ? (['channelsUpdates'] as const) : (['messages', 'statuses'] as const);
  const decoderOf = { messages: d.v3.message, statuses: d.v3.status, channelsUpdates: d.v3.channelUpdate };
  const lists: Items<unknown>[] = [];
  for (const key of keys) {
    const result = list(body, key, decoderOf[key], budget);
    if (!(result instanceof Items)) return { ok: false, issues: [result] };
    lists.push(result);
  }
  const good = lists.reduce((n, l) => n + l.good.length, 0);
  if (good === 0 && lists.some((l) => l.bad.length > 0)) return nothingDecoded(budget);
  const webhook: Record<string, unknown> = { api: 'v3', type: kind };
  for (const l of lists) webhook[l.list] = l.good;
  webhook.rejected = lists.flatMap((l) => l.rejected());
  return { ok: true, webhook: webhook as unknown as V3Webhook };
}

function decodeSingle(kind: Single, body: Record<string, unknown>, d: Decoders): Decoded<V3Webhook> {
  const decoder = {
    createContact: d.v3.createContact,
    createDeal: d.v3.createDeal,
    templateStatus: d.v3.templateStatus,
  }[kind];
  const budget = new IssueBudget();
  const one = decodeOne(decoder, body[kind], [kind], budget);
  if (!one.ok) return nothingDecoded(budget);
  return {
    ok: true,
    webhook: { api: 'v3', type: kind, [kind]: one.value, rejected: [] } as unknown as V3Webhook,
  };
}

/** The kinds a body carries, in the order of KINDS. */
function kindsOf(body: Record<string, unknown>): Kind[] {
  const present: Kind[] = [];
  for (const key in KINDS) {
    const kind = KINDS[key as keyof typeof KINDS];
    if (body[key] != null && !present.includes(kind)) present.push(kind);
  }
  return present;
}

/**
 * Decodes a v3 delivery: one property per kind, `messages` and `statuses` together as one
 * `messagesAndStatuses` value (both arrays, empty when absent; the only pair the spec allows in
 * one body), the `{ test: true }` probe, and `type: 'unknown'` for a body of no known kind.
 */
export function decodeV3(value: unknown, d: Decoders = fastDecoders()): Decoded<V3Webhook> {
  if (!isRecord(value)) return fail([], 'expected a v3 delivery (a JSON object)');
  if ('event' in value || 'meta' in value) {
    return fail([], 'expected a v3 delivery, got a v2 one (it has event or meta)');
  }
  const present = kindsOf(value);
  if (present.length === 0) {
    if (value.test === true || value.test === 'true')
      return { ok: true, webhook: { api: 'v3', type: 'test', test: true, rejected: [] } };
    const names = Object.keys(value).filter((key) => key !== '__proto__');
    if (names.length === 0)
      return fail([], `expected one of ${Object.keys(KINDS).join(', ')}, or { test: true }`);
    const body = Object.fromEntries(names.map((key) => [key, value[key]]));
    return { ok: true, webhook: { api: 'v3', type: 'unknown', unknownKinds: names, body, rejected: [] } };
  }
  if (present.length > 1) {
    // The spec allows messages and statuses together (one kind here), and no other pair.
    return fail([], `expected one kind per delivery, got several: ${present.join(', ')}`);
  }
  const kind = present[0] as Kind;
  return kind === 'messagesAndStatuses' || kind === 'channelsUpdates'
    ? decodeLists(kind, value, d)
    : decodeSingle(kind, value, d);
}
