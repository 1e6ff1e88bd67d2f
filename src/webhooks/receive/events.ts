import type { GatewayError } from '../../core/errors.js';
import type { KnownV2Event, UnknownV2Webhook, V2WebhookOf } from '../../schemas/events-v2.js';
import type { V3Webhook, V3WebhookType } from '../../schemas/events-v3.js';
import type {
  ContactAddReply,
  CreateContactReply,
  CreateDealReply,
  DealAddReply,
} from '../../schemas/replies.js';
import type { Webhook } from '../decode/parse.js';

/** A v3 delivery of one type. */
export type V3WebhookOf<T extends V3WebhookType> = Extract<V3Webhook, { type: T }>;

/** What the handler knows of the request when it reports an error. */
export interface ErrorContext {
  /** The body as it arrived (text, bytes or a parsed value), when it was read. */
  rawBody?: unknown;
  /** The decoded delivery, when decoding got that far. */
  webhook?: Webhook;
  /** Method and address of the delivery (the `secret` query value is masked). */
  request: { method: string; url: string };
  /** Where it failed. */
  stage: 'read' | 'auth' | 'decode' | 'dedupe' | 'respond' | 'dispatch' | 'listener';
}

/**
 * The second argument of every listener: what the delivery's request said beside its body.
 * @example
 * ```ts
 * // subscribed as https://crm.example/hooks/acme?secret=…
 * hooks.on('message.add', (event, { url }) => inboxOf(url.split('?')[0]).save(event.data));
 * ```
 */
export interface ListenerContext {
  /**
   * The delivery's path and query with every `secret` pair removed (`/hooks/acme?account=7`), so a
   * partner's receiver can route a delivery to the account its subscription URL named. Empty when
   * `receive()` was given no URL.
   */
  url: string;
  /**
   * The database transaction the listener runs in, when a store runs listeners inside one (the
   * PostgreSQL inbox's worker: a pg client inside BEGIN, a postgres.js `sql` of `sql.begin`, a
   * PGlite transaction). Writes made through it commit together with the delivery's completion.
   */
  tx?: unknown;
}

/** A listener may be sync or async; a rejection is reported on 'error', never lost. */
type Listener<A> = (arg: A, context: ListenerContext) => void | Promise<void>;

/**
 * The events of a WebhookHandler: one per v2 event kind (the narrowed delivery), `unknown` for v2
 * kinds the SDK does not know, `v3.<type>` per v3 type, `webhook` for every decoded delivery, and
 * `error` for every failure (decode, auth, listener, responder), with its context.
 */
export type WebhookEvents = { [E in KnownV2Event]: Listener<V2WebhookOf<E>> } & {
  unknown: Listener<UnknownV2Webhook>;
} & { [T in V3WebhookType as `v3.${T}`]: Listener<V3WebhookOf<T>> } & {
  /** Every decoded delivery. */
  webhook: Listener<Webhook>;
  /** Every failure: decode, auth, listener, responder; with the raw body when it was read. */
  error: (error: GatewayError, context: ErrorContext) => void;
};

/** The handler event name of a decoded delivery. */
export function eventName(webhook: Webhook): keyof WebhookEvents {
  return webhook.api === 'v2' ? webhook.event : `v3.${webhook.type}`;
}

/** The second argument of a responder. */
export interface ResponderContext {
  /**
   * Aborted when the reply is no longer wanted (`replyTimeoutMs` passed): stop creating the entity,
   * since the service sees a failure and may send the request again.
   */
  signal: AbortSignal;
  /**
   * The database transaction the responder runs in, when the dedupe store runs responders inside
   * one (`postgresStore(db).dedupe`): the CRM's rows written through it commit together with the
   * reply kept for the delivery's key, or not at all.
   */
  tx?: unknown;
}

/** The requests of the service that the CRM must answer with a created entity. */
export interface Responders {
  /** Create a CRM contact for the v2 request and reply with it (`id` and `name` required). */
  'crm_entities.contact_add': (
    event: V2WebhookOf<'crm_entities.contact_add'>,
    context: ResponderContext,
  ) => ContactAddReply | Promise<ContactAddReply>;
  /** Create a CRM deal for the v2 request and reply with it (`id` required). */
  'crm_entities.deal_add': (
    event: V2WebhookOf<'crm_entities.deal_add'>,
    context: ResponderContext,
  ) => DealAddReply | Promise<DealAddReply>;
  /** Create a CRM contact for the v3 request and reply with it (`id` required). */
  'v3.createContact': (
    payload: V3WebhookOf<'createContact'>,
    context: ResponderContext,
  ) => CreateContactReply | Promise<CreateContactReply>;
  /** Create a CRM deal for the v3 request and reply with it (`id` required). */
  'v3.createDeal': (
    payload: V3WebhookOf<'createDeal'>,
    context: ResponderContext,
  ) => CreateDealReply | Promise<CreateDealReply>;
}
/** A request kind that takes a reply. */
export type ResponderKind = keyof Responders;
