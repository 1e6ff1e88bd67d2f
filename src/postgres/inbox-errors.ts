import { GatewayError } from '../core/errors.js';

/** Why the inbox gave up on an attempt or a delivery: see {@link InboxDeliveryError.code}. */
export type InboxDeliveryErrorCode = 'dead' | 'timedOut';

/**
 * A delivery of the PostgreSQL inbox that its worker gave up on, reported on the handler's
 * 'error': `code` `'dead'` after `maxAttempts` attempts (kept; `store.inbox.retry(deliveryId)`
 * puts it back; `cause` is the last attempt's failure), or `'timedOut'` when an attempt outlived
 * the worker's `timeoutMs` (its transaction rolled back, tried again after its backoff). Its
 * message names the row and the figures only, never the delivery's content.
 */
export class InboxDeliveryError extends GatewayError {
  override name = 'InboxDeliveryError';
  /** `'dead'`: no attempt is left; `'timedOut'`: this attempt ran past `timeoutMs`. */
  readonly code: InboxDeliveryErrorCode;
  /** The inbox row's id (`store.inbox.get(id)`, `store.inbox.retry(id)`). */
  readonly deliveryId: string;
  /** Attempts made so far, this one included. */
  readonly attempts: number;

  constructor(init: {
    code: InboxDeliveryErrorCode;
    deliveryId: string;
    attempts: number;
    timeoutMs?: number;
    cause?: unknown;
  }) {
    const { code, deliveryId: id, attempts } = init;
    const message =
      code === 'dead'
        ? `Inbox delivery ${id} is dead after ${attempts} attempts; store.inbox.retry('${id}') puts it back`
        : `Inbox delivery ${id}: attempt ${attempts} did not end within timeoutMs (${init.timeoutMs} ms); rolled back`;
    super(message, { cause: init.cause, retryable: code === 'timedOut' });
    this.code = code;
    this.deliveryId = id;
    this.attempts = attempts;
  }
}
