import { isRecord } from '../internal/is-record.js';
import type { KnownV2Event, V2Payload } from '../schemas/events-v2.js';
import type {
  V3ChannelUpdate,
  V3CreateContact,
  V3CreateDeal,
  V3Message,
  V3Status,
  V3TemplateStatus,
} from '../schemas/events-v3.js';
import { deepMerge } from './deep-merge.js';
import { V2_DEFAULTS } from './defaults-v2.js';
import { V3_DEFAULTS } from './defaults-v3.js';
import { type IdSource, idSource } from './ids.js';

/** The wire body of a v2 delivery of kind `E` (spec: Events → Delivery rules, envelope). */
export interface V2DeliveryBody<E extends KnownV2Event = KnownV2Event> {
  event: E;
  data: V2Payload<E>[];
  meta: { idempotency_key: string; timestamp: number };
}

/** The wire body of each v3 delivery kind (spec: API v3 webhook deliveries). */
export interface V3DeliveryBodies {
  'v3.messages': { messages: V3Message[] };
  'v3.statuses': { statuses: V3Status[] };
  'v3.messagesAndStatuses': { messages: V3Message[]; statuses: V3Status[] };
  'v3.createContact': { createContact: V3CreateContact };
  'v3.createDeal': { createDeal: V3CreateDeal };
  'v3.channelsUpdates': { channelsUpdates: V3ChannelUpdate[] };
  'v3.templateStatus': { templateStatus: V3TemplateStatus };
  /** The probe the service sends when the v3 settings change. */
  'v3.test': { test: true };
}

/** A v3 delivery kind `buildWebhook` makes: `v3.` and the body's property. */
export type V3DeliveryKind = keyof V3DeliveryBodies;

/** Every kind `buildWebhook` makes: a v2 event name, or a v3 kind. */
export type DeliveryKind = KnownV2Event | V3DeliveryKind;

/** The wire body `buildWebhook(kind)` returns. */
export type DeliveryBody<K extends DeliveryKind> = K extends KnownV2Event
  ? V2DeliveryBody<K>
  : K extends V3DeliveryKind
    ? V3DeliveryBodies[K]
    : never;

/** `T` with every field optional, at every depth; `null` clears a field. */
export type DeepPartial<T> = T extends readonly (infer U)[]
  ? DeepPartial<U>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> | null }
    : T;

/** Options of {@link buildWebhook}. */
export interface BuildWebhookOptions {
  /**
   * Makes the body repeatable: the same seed gives the same ids and idempotency key on every run,
   * and every timestamp is 2025-01-01T00:00:00Z (unless `now` is given). Without it ids are random.
   */
  seed?: number | string;
  /** Unix milliseconds for every timestamp of the body. @default Date.now(), or the fixed seeded time */
  now?: number;
}

/** Every v2 event kind this kit builds, in the spec's order. */
export const V2_DELIVERY_KINDS = Object.keys(V2_DEFAULTS) as KnownV2Event[];

type ItemMakers = Record<string, (ids: IdSource) => unknown>;

/** The arrays of items each v3 kind carries, and the default of one item. */
const V3_KINDS: Record<V3DeliveryKind, { items?: ItemMakers; single?: ItemMakers }> = {
  'v3.messages': { items: { messages: V3_DEFAULTS.message } },
  'v3.statuses': { items: { statuses: V3_DEFAULTS.status } },
  'v3.messagesAndStatuses': { items: { messages: V3_DEFAULTS.message, statuses: V3_DEFAULTS.status } },
  'v3.createContact': { single: { createContact: V3_DEFAULTS.createContact } },
  'v3.createDeal': { single: { createDeal: V3_DEFAULTS.createDeal } },
  'v3.channelsUpdates': { items: { channelsUpdates: V3_DEFAULTS.channelUpdate } },
  'v3.templateStatus': { single: { templateStatus: V3_DEFAULTS.templateStatus } },
  'v3.test': {},
};

/** Every v3 kind this kit builds. */
export const V3_DELIVERY_KINDS = Object.keys(V3_KINDS) as V3DeliveryKind[];

/** Every kind `buildWebhook` accepts: the v2 event names, then the v3 kinds. */
export const DELIVERY_KINDS: readonly DeliveryKind[] = [...V2_DELIVERY_KINDS, ...V3_DELIVERY_KINDS];

/** True when `kind` is a kind {@link buildWebhook} makes. */
export function isDeliveryKind(kind: string): kind is DeliveryKind {
  return (DELIVERY_KINDS as readonly string[]).includes(kind);
}

/** An array of items: each override item merged over a fresh default item. */
function items(make: (ids: IdSource) => unknown, ids: IdSource, override: unknown): unknown {
  if (override === undefined || override === null) return [make(ids)];
  return deepMerge(undefined, override, () => make(ids));
}

function buildBody(kind: DeliveryKind, ids: IdSource, overrides: Record<string, unknown>) {
  if (kind in V2_DEFAULTS) {
    const make = V2_DEFAULTS[kind as KnownV2Event] as (ids: IdSource) => unknown;
    const data = items(make, ids, overrides.data);
    const meta = { idempotency_key: ids.id(), timestamp: Math.floor(ids.now / 1000) };
    return deepMerge({ event: kind, data, meta }, { ...overrides, data: undefined });
  }
  const { items: lists = {}, single = {} } = V3_KINDS[kind as V3DeliveryKind];
  const body: Record<string, unknown> = kind === 'v3.test' ? { test: true } : {};
  for (const [key, make] of Object.entries(lists)) body[key] = items(make, ids, overrides[key]);
  for (const [key, make] of Object.entries(single)) body[key] = make(ids);
  const rest = Object.fromEntries(Object.entries(overrides).filter(([key]) => !(key in lists)));
  return deepMerge(body, rest);
}

/**
 * Builds a whole, valid webhook delivery of one kind, as the service would send it: every field
 * the spec requires is filled with a plausible default, and `overrides` are deep-merged over it.
 * `parseWebhook` accepts the result (unless an override breaks it on purpose).
 *
 * Arrays of items (`data` of v2; `messages`, `statuses`, `channelsUpdates` of v3) take their
 * length from the override: each override item is merged over a fresh default item.
 *
 * @param kind a v2 event name (`'message.add'`, …) or a v3 kind (`'v3.messages'`, `'v3.statuses'`,
 *   `'v3.messagesAndStatuses'`, `'v3.createContact'`, `'v3.createDeal'`, `'v3.channelsUpdates'`,
 *   `'v3.templateStatus'`, `'v3.test'`)
 * @param overrides fields to set, at any depth
 * @example
 * ```ts
 * const body = buildWebhook('message.status_update', { data: [{ request_id, status: 'read' }] });
 * await hooks.handle({ method: 'POST', url: '/hooks?secret=s', headers: {}, body: JSON.stringify(body) });
 * const again = buildWebhook('message.add', {}, { seed: 1 }); // the same ids on every run
 * ```
 */
export function buildWebhook<K extends DeliveryKind>(
  kind: K,
  overrides: DeepPartial<DeliveryBody<K>> = {} as DeepPartial<DeliveryBody<K>>,
  options: BuildWebhookOptions = {},
): DeliveryBody<K> {
  if (!isDeliveryKind(kind)) throw new TypeError(`buildWebhook: unknown kind "${String(kind)}"`);
  if (!isRecord(overrides)) throw new TypeError('buildWebhook: overrides must be an object');
  return buildBody(kind, idSource(options.seed, options.now), overrides) as DeliveryBody<K>;
}
