import { GatewayError } from '../../core/errors.js';
import { LATE, within } from '../../internal/deadline.js';
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

  /** Claims `key`; rejects with a retryable GatewayError when the store fails or hangs. */
  claim(key: string): Promise<ClaimResult> {
    return bounded(() => this.store.claim(key, this.leaseMs), 'claim');
  }

  /**
   * Keeps a CRM reply with the key before anything else runs, so every later attempt of the
   * delivery is answered with it and the responder never runs twice for one key.
   */
  keepReply(claim: Claim, reply: unknown): Promise<void> {
    return bounded(() => this.store.keepReply(claim.key, reply, this.ttlMs, claim.token), 'keepReply');
  }

  /** Applies an outcome's key action: `done` completes (with the reply), `released` releases. */
  async apply(claim: Claim, action: KeyAction, reply?: unknown): Promise<void> {
    if (action === 'done') {
      await bounded(() => this.store.complete(claim.key, this.ttlMs, reply, claim.token), 'complete');
    } else if (action === 'released') {
      await bounded(() => this.store.release(claim.key, claim.token), 'release');
    }
  }
}

/** Runs one store call, rejecting past STORE_TIMEOUT_MS (the call itself may still finish). */
function bounded<T>(call: () => T | Promise<T>, what: string): Promise<T> {
  const failed = (error: unknown) =>
    error instanceof GatewayError
      ? error
      : new GatewayError(`The dedupe store failed (${what}): ${(error as Error)?.message ?? String(error)}`, {
          cause: error,
          retryable: true,
        });
  let result: T | Promise<T>;
  try {
    result = call();
  } catch (error) {
    return Promise.reject(failed(error));
  }
  if (!(result instanceof Promise)) return Promise.resolve(result); // a store in memory: no timer
  return within(result, STORE_TIMEOUT_MS).then(
    (settled) => {
      if (settled === LATE) {
        throw new GatewayError(`The dedupe store did not answer ${what} within ${STORE_TIMEOUT_MS} ms`, {
          retryable: true,
        });
      }
      return settled;
    },
    (error: unknown) => {
      throw failed(error);
    },
  );
}
