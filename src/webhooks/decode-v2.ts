import { z } from 'zod';
import type { Issue } from '../core/errors.js';
import {
  type KnownV2Event,
  V2_PAYLOADS,
  V2_STRICT,
  type V2Webhook,
  webhookMeta,
} from '../schemas/events-v2.js';
import { toIssues } from '../schemas/issues.js';
import { parseTwoPass, type TwoPass, twoPass } from './two-pass.js';

/** The outcome of decoding one surface: the webhook, or every structural issue found. */
export type Decoded<W> = { ok: true; webhook: W } | { ok: false; issues: Issue[] };

const known = new Map<string, KnownV2Event>(
  (Object.keys(V2_PAYLOADS) as KnownV2Event[]).map((name) => [name.toLowerCase(), name]),
);
// Built once: one pair per event kind (the strict one compiled into a plain check).
const dataSchemas = new Map<string, TwoPass>(
  (Object.keys(V2_PAYLOADS) as KnownV2Event[]).map((name) => [
    name,
    twoPass(z.array(V2_STRICT.payloads[name] as z.ZodType), z.array(V2_PAYLOADS[name] as z.ZodType)),
  ]),
);
const metaSchemas = twoPass(V2_STRICT.webhookMeta, webhookMeta);

/** A plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Envelope fields other than the ones decoded, kept as they came (never `__proto__`). */
function extraFields(value: Record<string, unknown>, skip: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (!skip.includes(key) && key !== '__proto__') out[key] = value[key];
  }
  return out;
}

/**
 * Decodes a v2 delivery (spec: Events → Envelope): `event`, `data` (an array), `meta`. A kind the
 * SDK does not know decodes to `event: 'unknown'` with the name kept in `unknownEvent`.
 */
export function decodeV2(value: unknown): Decoded<V2Webhook> {
  if (!isRecord(value))
    return { ok: false, issues: [{ path: [], message: 'a v2 delivery is a JSON object' }] };
  const issues: Issue[] = [];
  const { event, data } = value;
  if (typeof event !== 'string' || event === '') {
    issues.push({ path: ['event'], message: 'event must be a string naming the event kind' });
  }
  if (!Array.isArray(data)) issues.push({ path: ['data'], message: 'data must be an array of payloads' });
  const meta = parseTwoPass(metaSchemas, value.meta);
  if (!meta.success) issues.push(...toIssues(meta.error, ['meta']));
  if (issues.length > 0) return { ok: false, issues };

  const name = known.get((event as string).toLowerCase());
  const extra = extraFields(value, ['event', 'data', 'meta', 'api']);
  if (name === undefined) {
    const webhook = {
      ...extra,
      api: 'v2',
      event: 'unknown',
      unknownEvent: event,
      data,
      meta: meta.data,
    } as V2Webhook;
    return { ok: true, webhook };
  }
  const payloads = parseTwoPass(dataSchemas.get(name) as TwoPass, data);
  if (!payloads.success) return { ok: false, issues: toIssues(payloads.error, ['data']) };
  const webhook = { ...extra, api: 'v2', event: name, data: payloads.data, meta: meta.data } as V2Webhook;
  return { ok: true, webhook };
}
