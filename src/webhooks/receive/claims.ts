import { GatewayError } from '../../core/errors.js';
import { LATE, within } from '../../internal/deadline.js';
import { messageOf } from '../../internal/message-of.js';
import type { ClaimResult, DedupeStore } from './dedupe-store.js';
import type { KeyAction } from './outcomes.js';

/** A delivery's hold on its idempotency key. */
export interface Claim {
  key: string;
  token: string | undefined;
}

/** Longest wait for one call of the dedupe store (ms): a store that hangs must not hang a delivery. */
export const STORE_TIMEOUT_MS = 5_000;

/**
 * The handler's side of a {@link DedupeStore}: claims keys for a lease, and completes or releases
 * them as the outcome table says, each store call bounded by {@link STORE_TIMEOUT_MS}.
 */
export class Claims {
  constructor(
    readonly store: DedupeStore,
    readonly leaseMs: number,
    readonly ttlMs: number,
  ) {}

  /**
   * Claims `key`: at once when the store answers at once (a store in memory), so the delivery
   * goes on in the same turn. Throws, or rejects, with a retryable GatewayError when the store
   * fails or hangs.
   */
  claim(key: string): ClaimResult | Promise<ClaimResult> {
    return bounded(() => this.store.claim(key, this.leaseMs), 'claim');
  }

  /**
   * Keeps a CRM reply with the key before anything else runs, so every later attempt of the
   * delivery is answered with it and the responder never runs twice for one key.
   */
  keepReply(claim: Claim, reply: unknown): void | Promise<void> {
    return bounded(() => this.store.keepReply(claim.key, reply, this.ttlMs, claim.token), 'keepReply');
  }

  /**
   * Applies an outcome's key action: `done` completes (with the reply), `released` releases. At
   * once when the store answers at once; throws, or rejects, as {@link Claims.claim} does.
   */
  apply(claim: Claim, action: KeyAction, reply?: unknown): void | Promise<void> {
    if (action === 'done') {
      return bounded(() => this.store.complete(claim.key, this.ttlMs, reply, claim.token), 'complete');
    }
    if (action === 'released') return bounded(() => this.store.release(claim.key, claim.token), 'release');
  }
}

/**
 * Runs one store call: its answer as it comes when the store answers at once, or a promise that
 * rejects past STORE_TIMEOUT_MS (the call itself may still finish). A failure is a retryable
 * GatewayError either way.
 */
function bounded<T>(call: () => T | PromiseLike<T>, what: string): T | Promise<T> {
  let result: T | PromiseLike<T>;
  try {
    result = call();
  } catch (error) {
    throw storeFailed(error, what);
  }
  if (typeof (result as PromiseLike<T> | null)?.then !== 'function') return result as T; // a store in memory: no timer
  return within(Promise.resolve(result), STORE_TIMEOUT_MS).then(
    (settled) => {
      if (settled === LATE) {
        throw new GatewayError(`The dedupe store did not answer ${what} within ${STORE_TIMEOUT_MS} ms`, {
          retryable: true,
        });
      }
      return settled;
    },
    (error: unknown) => {
      throw storeFailed(error, what);
    },
  );
}

/** A store's failure as a retryable GatewayError naming the call (made only when one failed). */
function storeFailed(error: unknown, what: string): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError(`The dedupe store failed (${what}): ${messageOf(error)}`, {
    cause: error,
    retryable: true,
  });
}
