import { jsonResponse, type WebhookResponse } from './request.js';

/** What an outcome does to the delivery's idempotency key. */
export type KeyAction = 'none' | 'kept' | 'done' | 'released';

/** One row of the outcome table: the answer, and what becomes of the dedupe key. */
export interface OutcomeRow {
  status: number;
  /** The answer's body when the outcome has no reply of its own. */
  body: unknown;
  headers?: Record<string, string>;
  key: KeyAction;
}

/** Seconds the service is asked to wait before it sends a delivery again. */
export const RETRY_AFTER_SECONDS = 5;
const retryLater = { 'retry-after': String(RETRY_AFTER_SECONDS) };

/**
 * Every way a delivery can end, in one table: the answer the service gets and what happens to
 * the delivery's idempotency key. The pipeline only names the outcome; nothing else decides an
 * answer. A key is `done` when the delivery was processed (a repeat is answered from the store),
 * `released` when the service must send it again and have it processed (a CRM reply kept with it
 * stays, so that retry gets the same reply without the responder running again), `kept` when the
 * store already holds it for another attempt.
 *
 * Which key a delivery holds is decided before any of these (`DeliveryKeys`): its own
 * `meta.idempotency_key`; for a CRM request without one (every v3 createContact and createDeal, a
 * v2 contact_add or deal_add without it) a key derived from its kind and its body's JSON value, so
 * every row below holds for it unchanged; any other delivery without one has no key, and its
 * outcome changes no key.
 */
export const OUTCOMES = {
  /** Not a POST. */
  methodNotAllowed: {
    status: 405,
    body: { error: 'method_not_allowed' },
    headers: { allow: 'POST', connection: 'close' },
    key: 'none',
  },
  /**
   * Neither the right secret nor, for v3, the right crmKey: the body is not read, and the
   * connection is closed rather than drained.
   */
  unauthorized: {
    status: 401,
    body: { error: 'unauthorized' },
    headers: { connection: 'close' },
    key: 'none',
  },
  /**
   * The v3 `{ test: true }` probe without the crmKey (the service may probe before it holds the
   * key): answered 200, with nothing dispatched.
   */
  probe: { status: 200, body: { ok: true }, key: 'none' },
  /** Over `maxBodyBytes`: reading stops there and the connection is closed. */
  tooLarge: { status: 413, body: { error: 'body_too_large' }, headers: { connection: 'close' }, key: 'none' },
  /** Not complete within `bodyTimeoutMs`. */
  bodyTimeout: {
    status: 408,
    body: { error: 'body_timeout' },
    headers: { connection: 'close' },
    key: 'none',
  },
  /** The client went away mid-body: there is nobody to answer, and the process keeps serving. */
  clientGone: { status: 400, body: { error: 'client_gone' }, headers: { connection: 'close' }, key: 'none' },
  /** No body reached the handler: a framework read it first (a wiring mistake, reported). */
  bodyMissing: { status: 500, body: { error: 'body_missing' }, key: 'none' },
  /** Not JSON, or not a delivery, or no item of it decodes. */
  invalid: { status: 400, body: { error: 'invalid_webhook' }, key: 'none' },
  /** Processed already: 200, and a CRM request gets the reply it got the first time. */
  duplicate: { status: 200, body: { ok: true, duplicate: true }, key: 'kept' },
  /** Being processed elsewhere: the service is asked to come back. */
  processing: { status: 409, body: { error: 'processing_elsewhere' }, headers: retryLater, key: 'kept' },
  /** Processed (listeners run after the answer under 'background'); a CRM request's reply is stored. */
  accepted: { status: 200, body: { ok: true }, key: 'done' },
  /** A CRM reply missing, failing, invalid or late: the responder's signal is aborted. */
  replyFailed: { status: 500, body: { error: 'reply_failed' }, key: 'released' },
  /** 'background' with `maxPendingDispatches` reached, before any responder runs. */
  busy: { status: 503, body: { error: 'busy' }, headers: retryLater, key: 'released' },
  /** 'await': a listener failed. */
  listenerFailed: { status: 500, body: { error: 'listener_failed' }, key: 'released' },
  /** The queue function rejected. */
  queueFailed: { status: 503, body: { error: 'queue_failed' }, headers: retryLater, key: 'released' },
  /**
   * A CRM request answered, then an 'await' listener failed: the reply stays stored with the key,
   * so the service's retry gets the same reply without the responder running again, and the
   * listeners run again.
   */
  listenerFailedReplyKept: { status: 500, body: { error: 'listener_failed' }, key: 'released' },
  /** A CRM request answered, then the queue function rejected: as {@link OUTCOMES.listenerFailedReplyKept}, 503. */
  queueFailedReplyKept: {
    status: 503,
    body: { error: 'queue_failed' },
    headers: retryLater,
    key: 'released',
  },
  /**
   * A CRM request answered, the store failed to keep its reply, then the dispatch failed: 200 with
   * the reply (both failures reported), since a retry would run the responder again and a second
   * CRM entity is worse than a listener's lost retry.
   */
  answeredReplyNotKept: { status: 200, body: { ok: true }, key: 'done' },
  /** Anything unexpected (a dedupe store that is down, a bug): reported, never a crash. */
  unexpected: { status: 500, body: { error: 'internal_error' }, key: 'released' },
} as const satisfies Record<string, OutcomeRow>;

/** The name of an outcome. */
export type Outcome = keyof typeof OUTCOMES;

/** The answer of an outcome; on a 200 row, `reply` (a CRM reply) replaces the row's body. */
export function answerOf(outcome: Outcome, reply?: unknown): WebhookResponse {
  const row: OutcomeRow = OUTCOMES[outcome];
  // A CRM reply answers only a delivery that succeeded; a failure never carries it.
  if (reply !== undefined && row.status === 200) return jsonResponse(row.status, reply, row.headers);
  return { ...FIXED[outcome], headers: { ...FIXED[outcome].headers } };
}

// Built once: most deliveries get one of these.
const FIXED = Object.fromEntries(
  Object.entries(OUTCOMES).map(([name, row]: [string, OutcomeRow]) => [
    name,
    jsonResponse(row.status, row.body, row.headers),
  ]),
) as Record<Outcome, WebhookResponse>;
