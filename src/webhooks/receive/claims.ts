import { GatewayError } from '../../core/errors.js';
import { LATE, within } from '../../internal/deadline.js';
import { messageOf } from '../../internal/message-of.js';
import type { ClaimResult, DedupeStore } from './dedupe-store.js';
import type { KeyAction } from './outcomes.js';

/** A delivery's hold on its idempotency key. */
export interface Claim {
  key: string;
  token: string | undefined;
  /** Whether the key was derived from a keyless CRM request's body (see `DeliveryKeys`). */
  derived: boolean;
}

/**
 * Longest life of a derived key once done or kept (ms). A derived key stands for one request's
 * body, and the service's retries of that request come within minutes; the same body later is a
 * new request (a deal deleted in the CRM and added again), which must reach the responder.
 */
export const DERIVED_KEY_TTL_MS = 10 * 60_000;

/** Longest wait for one call of the dedupe store (ms): a store that hangs must not hang a delivery. */
export const STORE_TIMEOUT_MS = 5_000;

/**
 * The handler's side of a {@link DedupeStore}: claims keys for a lease, keeps CRM replies, and
 * completes or releases keys as the outcome table says. Each store call is bounded by
 * {@link STORE_TIMEOUT_MS}; a failure is a retryable GatewayError naming the call.
 */
export class Claims {
  constructor(
    readonly store: DedupeStore,
    readonly leaseMs: number,
    readonly ttlMs: number,
  ) {}

  /** Claims `key` for the lease: what the store says of it. */
  claim(key: string): Promise<ClaimResult> {
    return bounded(() => this.store.claim(key, this.leaseMs), 'claim');
  }

  /**
   * Keeps a CRM reply with the key before anything else runs, so every later attempt of the
   * delivery is answered with it and the responder never runs twice for one key.
   */
  keepReply(claim: Claim, reply: unknown): Promise<void> {
    return bounded(
      () => this.store.keepReply(claim.key, reply, this.#ttlOf(claim), claim.token),
      'keepReply',
    );
  }

  /** Applies an outcome's key action: `done` completes (with the reply), `released` releases. */
  apply(claim: Claim, action: KeyAction, reply?: unknown): Promise<void> {
    if (action === 'done') {
      return bounded(
        () => this.store.complete(claim.key, this.#ttlOf(claim), reply, claim.token),
        'complete',
      );
    }
    if (action === 'released') return bounded(() => this.store.release(claim.key, claim.token), 'release');
    return Promise.resolve();
  }

  /** How long the store remembers the claim's key once done, or its kept reply. */
  #ttlOf(claim: Claim): number {
    return claim.derived ? Math.min(this.ttlMs, DERIVED_KEY_TTL_MS) : this.ttlMs;
  }
}

/** One store call, rejecting past {@link STORE_TIMEOUT_MS} (the call itself may still finish). */
async function bounded<T>(call: () => T | PromiseLike<T>, what: string): Promise<T> {
  try {
    const answer = call();
    // A store in memory answers at once (and may give back anything, as `map.set` does): no timer.
    if (typeof (answer as PromiseLike<T> | null)?.then !== 'function') return answer as T;
    const settled = await within(Promise.resolve(answer), STORE_TIMEOUT_MS);
    if (settled === LATE) {
      throw new GatewayError(`The dedupe store did not answer ${what} within ${STORE_TIMEOUT_MS} ms`, {
        retryable: true,
      });
    }
    return settled;
  } catch (error) {
    throw storeFailed(error, what);
  }
}

/** A store's failure as a retryable GatewayError naming the call. */
function storeFailed(error: unknown, what: string): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError(`The dedupe store failed (${what}): ${messageOf(error)}`, {
    cause: error,
    retryable: true,
  });
}
