import type { Issue } from '../../core/errors.js';
import { isRecord } from '../../internal/is-record.js';
import type { RejectedItem } from '../../schemas/events-v2.js';
import type { V3Webhook } from '../../schemas/events-v3.js';
import { kindOf } from '../../schemas/lenient.js';
import { type Decoders, fastDecoders } from './decoders.js';
import { type Decoder, decodeItems, decodeOne, IssueBudget, Items } from './items.js';
import { type Decoded, nothingDecoded } from './v2.js';

// One property per kind (spec: API v3 webhook deliveries, 3); messages and statuses may share one.
// CRM requests first: in a body of several kinds, the one that needs a reply leads.
const KINDS = {
  createContact: 'createContact',
  createDeal: 'createDeal',
  messages: 'messagesAndStatuses',
  statuses: 'messagesAndStatuses',
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
  if (value == null) return new Items(key, []);
  if (!Array.isArray(value)) return { path: [key], message: `expected an array, got ${kindOf(value)}` };
  return decodeItems(decoder, value, key, budget);
}

function decodeLists(
  kind: 'messagesAndStatuses' | 'channelsUpdates',
  body: Record<string, unknown>,
  d: Decoders,
): Decoded<V3Webhook> {
  // Plain statements, no per-delivery arrays or closures, and each webhook made whole in one
  // literal: this runs for every v3 delivery.
  const budget = new IssueBudget();
  if (kind === 'channelsUpdates') {
    const updates = list(body, 'channelsUpdates', d.v3.channelUpdate, budget);
    if (!(updates instanceof Items)) return { ok: false, issues: [updates] };
    if (updates.good.length === 0 && updates.badCount > 0) return nothingDecoded(budget);
    const webhook = { api: 'v3', type: kind, channelsUpdates: updates.good, rejected: updates.rejected() };
    return { ok: true, webhook: webhook as unknown as V3Webhook };
  }
  const messages = list(body, 'messages', d.v3.message, budget);
  if (!(messages instanceof Items)) return { ok: false, issues: [messages] };
  const statuses = list(body, 'statuses', d.v3.status, budget);
  if (!(statuses instanceof Items)) return { ok: false, issues: [statuses] };
  const good = messages.good.length + statuses.good.length;
  if (good === 0 && messages.badCount + statuses.badCount > 0) return nothingDecoded(budget);
  const rejected = messages.rejected();
  if (statuses.badCount > 0) for (const item of statuses.rejected()) rejected.push(item);
  const webhook = { api: 'v3', type: kind, messages: messages.good, statuses: statuses.good, rejected };
  return { ok: true, webhook: webhook as unknown as V3Webhook };
}

function decodeSingle(kind: Single, body: Record<string, unknown>, d: Decoders): Decoded<V3Webhook> {
  const budget = new IssueBudget();
  const one = decodeOne(d.v3[kind], body[kind], [kind], budget);
  if (!one.ok) return nothingDecoded(budget);
  return {
    ok: true,
    webhook: { api: 'v3', type: kind, [kind]: one.value, rejected: [] } as unknown as V3Webhook,
  };
}

/**
 * The kinds a body carries, in the order of KINDS. A list grown by push starts with room for 16:
 * the one kind of nearly every delivery is a list of one, made as such.
 */
function kindsOf(body: Record<string, unknown>): readonly Kind[] {
  let first: Kind | undefined;
  let several: Kind[] | undefined;
  for (const key in KINDS) {
    const kind = KINDS[key as keyof typeof KINDS];
    if (body[key] == null || kind === first || several?.includes(kind)) continue;
    if (first === undefined) first = kind;
    else if (several) several.push(kind);
    else several = [first, kind];
  }
  return several ?? (first === undefined ? NO_KINDS : [first]);
}

const NO_KINDS: readonly Kind[] = [];

function decodeKind(kind: Kind, body: Record<string, unknown>, d: Decoders): Decoded<V3Webhook> {
  return kind === 'messagesAndStatuses' || kind === 'channelsUpdates'
    ? decodeLists(kind, body, d)
    : decodeSingle(kind, body, d);
}

/** Whether `key` names no kind the SDK knows (and is not the probe's `test`, nor `__proto__`). */
function isUnknownName(key: string): boolean {
  return key !== '__proto__' && key !== 'test' && !Object.hasOwn(KINDS, key);
}

/** The property names of a body that name no kind the SDK knows. */
function unknownNames(body: Record<string, unknown>): string[] {
  return Object.keys(body).filter(isUnknownName);
}

/** Whether a body has a property {@link unknownNames} would list (allocates nothing). */
function hasUnknownName(body: Record<string, unknown>): boolean {
  for (const key in body) if (Object.hasOwn(body, key) && isUnknownName(key)) return true;
  return false;
}

function unknownPart(body: Record<string, unknown>, names: string[]): V3Webhook {
  const kept = Object.fromEntries(names.map((key) => [key, body[key]]));
  return { api: 'v3', type: 'unknown', unknownKinds: names, body: kept, rejected: [] };
}

/**
 * A body of several kinds: each decoded as a delivery of its own; the first (a CRM request when
 * there is one) leads and holds the others in `also`. A kind that does not decode is listed in
 * `rejected` (index -1, its whole value as `raw`) and never sinks the others; a kind the SDK does
 * not know is kept as an `unknown` part. Fails only when no known kind decodes.
 */
function decodeSeveral(
  present: readonly Kind[],
  body: Record<string, unknown>,
  d: Decoders,
): Decoded<V3Webhook> {
  const parts: V3Webhook[] = [];
  const failed: RejectedItem[] = [];
  for (const kind of present) {
    const one = decodeKind(kind, body, d);
    if (one.ok) {
      parts.push(one.webhook);
      continue;
    }
    const keys = kind === 'messagesAndStatuses' ? ['messages', 'statuses'] : [kind];
    const list = keys.filter((key) => body[key] != null).join('+');
    failed.push({
      list,
      index: -1,
      issues: one.issues,
      raw: keys.length > 1 ? pick(body, keys) : body[kind],
    });
  }
  const [lead, ...others] = parts;
  if (!lead) return { ok: false, issues: failed.flatMap((f) => f.issues) };
  const names = unknownNames(body);
  if (names.length > 0) others.push(unknownPart(body, names));
  const rejected = [...parts.flatMap((part) => part.rejected), ...failed];
  return { ok: true, webhook: { ...lead, rejected, also: others } };
}

function pick(body: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => body[key] != null).map((key) => [key, body[key]]));
}

/**
 * Decodes a v3 delivery: one property per kind, `messages` and `statuses` together as one
 * `messagesAndStatuses` value (both arrays, empty when absent), the `{ test: true }` probe, and
 * `type: 'unknown'` for a body of no known kind. A body of several kinds keeps every one of them
 * (see `also`); none is dropped and none makes the rest refused.
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
    const names = unknownNames(value);
    if (names.length === 0)
      return fail([], `expected one of ${Object.keys(KINDS).join(', ')}, or { test: true }`);
    return { ok: true, webhook: unknownPart(value, names) };
  }
  if (present.length > 1 || hasUnknownName(value)) return decodeSeveral(present, value, d);
  return decodeKind(present[0] as Kind, value, d);
}
