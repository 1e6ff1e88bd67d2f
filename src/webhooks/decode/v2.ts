import type { Issue } from '../../core/errors.js';
import { isRecord } from '../../internal/is-record.js';
import { V2_EVENTS } from '../../schemas/constants.js';
import type { V2Webhook, WebhookMeta } from '../../schemas/events-v2.js';
import { type Decoders, fastDecoders } from './decoders.js';
import { decodeItems, decodeOne, IssueBudget } from './items.js';

/**
 * The outcome of decoding one surface: the webhook (which lists its rejected items), or every
 * structural issue found, at most 100, with the count of rejected items whose issues were not kept.
 */
export type Decoded<W> = { ok: true; webhook: W } | { ok: false; issues: Issue[]; omitted?: number };

const ENVELOPE = ['event', 'data', 'meta', 'api', 'rejected'];
/** Where the meta's issues are (read, never changed, by the decoders). */
const META_PATH: readonly string[] = ['meta'];
const known = new Map<string, (typeof V2_EVENTS)[number]>(
  V2_EVENTS.map((name) => [name.toLowerCase(), name]),
);

/** Envelope fields other than the ones decoded, kept as they came (never `__proto__`). */
export function extraFields(
  value: Record<string, unknown>,
  skip: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (Object.hasOwn(value, key) && !skip.includes(key) && key !== '__proto__') out[key] = value[key];
  }
  return out;
}

/** Whether the envelope has no field but event, data and meta (every delivery the spec shows). */
function onlyEnvelope(value: Record<string, unknown>): boolean {
  for (const key in value) if (key !== 'event' && key !== 'data' && key !== 'meta') return false;
  return true;
}

/** The failure of a delivery none of whose items decoded. */
export function nothingDecoded(budget: IssueBudget): Decoded<never> {
  return { ok: false, issues: budget.issues, omitted: budget.omitted };
}

/**
 * Decodes a v2 delivery (spec: Events → Envelope): `event`, `data` (an array), `meta`. Each item
 * of `data` is decoded on its own; the ones that fail are listed in `rejected`. A kind the SDK
 * does not know decodes to `event: 'unknown'` with the name kept in `unknownEvent`.
 */
export function decodeV2(value: unknown, decoders: Decoders = fastDecoders()): Decoded<V2Webhook> {
  if (!isRecord(value))
    return { ok: false, issues: [{ path: [], message: 'expected a v2 delivery (a JSON object)' }] };
  const budget = new IssueBudget();
  const { event, data } = value;
  if (typeof event !== 'string' || event === '') {
    budget.keep([{ path: ['event'], message: 'expected a string naming the event kind' }]);
  }
  if (!Array.isArray(data)) budget.keep([{ path: ['data'], message: 'expected an array of payloads' }]);
  // An envelope without meta is still a delivery: processed without dedupe.
  const meta = decodeOne<WebhookMeta>(decoders.meta, value.meta ?? {}, META_PATH, budget);
  if (!meta.ok || budget.count > 0) return nothingDecoded(budget);

  const name = known.get(event as string) ?? known.get((event as string).toLowerCase());
  if (name === undefined) {
    const webhook = extraFields(value, ENVELOPE);
    webhook.api = 'v2';
    webhook.meta = meta.value;
    webhook.event = 'unknown';
    webhook.unknownEvent = event;
    webhook.data = data;
    webhook.rejected = [];
    return { ok: true, webhook: webhook as unknown as V2Webhook };
  }
  const items = decodeItems(decoders.v2[name], data as unknown[], 'data', budget);
  if (items.good.length === 0 && items.badCount > 0) return nothingDecoded(budget);
  // Made whole in one literal (this runs for every v2 delivery); fields the spec does not name
  // come first, as they came.
  const decoded = { api: 'v2', meta: meta.value, event: name, data: items.good, rejected: items.rejected() };
  const webhook = onlyEnvelope(value) ? decoded : { ...extraFields(value, ENVELOPE), ...decoded };
  return { ok: true, webhook: webhook as unknown as V2Webhook };
}
