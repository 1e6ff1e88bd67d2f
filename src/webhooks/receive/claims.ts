import { GatewayError } from '../../core/errors.js';
import { LATE, within } from '../../internal/deadline.js';
import { messageOf } from '../../internal/message-of.js';
import type { ClaimResult, DedupeStore } from './dedupe-store.js';
import type { KeyAction } from './outcomes.js';

/**
 * Longest life of a derived key once done or kept (ms). A derived key stands for one request's
 * body, and the service's retries of that request come within minutes; the same body later is a
 * new request (a deal deleted in the CRM and added again), which must reach the responder.
 */
export const DERIVED_KEY_TTL_MS = 10 * 60_000;

/** Longest wait for one call of the dedupe store (ms): a store that hangs must not hang a delivery. */
export const STORE_TIMEOUT_MS = 5_000;

/**
 * What claiming a key came to: `claimed`, with the claim now held (and the CRM reply an earlier
 * attempt kept, when there is one); `processing` (held elsewhere); `done` (with its stored reply).
 */
export type Claimed =
  | { state: 'claimed'; claim: Claim; reply?: unknown }
  | { state: 'processing' }
  | { state: 'done'; reply?: unknown };

/**
 * The handler's side of a {@link DedupeStore}: claims keys for a lease, or has the store process a
 * delivery in a transaction of its own. Each call of the store is bounded by
 * {@link STORE_TIMEOUT_MS}; a failure is a retryable GatewayError naming the call.
 */
export class Claims {
  readonly #store: DedupeStore;
  readonly #leaseMs: number;
  readonly #ttlMs: number;

  constructor(store: DedupeStore, leaseMs: number, ttlMs: number) {
    this.#store = store;
    this.#leaseMs = leaseMs;
    this.#ttlMs = ttlMs;
  }

  /** Whether the store holds each key in a database transaction (`processInTransaction`) instead of a claim. */
  get transactional(): boolean {
    return typeof this.#store.processInTransaction === 'function';
  }

  /** Claims `key` for the lease (`derived`: a key derived from a keyless CRM request's body). */
  async claim(key: string, derived: boolean): Promise<Claimed> {
    const result = await bounded(() => this.#store.claim(key, this.#leaseMs), 'claim');
    if (result.state !== 'claimed') return result;
    const claim = new Claim(this.#store, key, result.token, this.#ttlOf(derived));
    return result.reply === undefined
      ? { state: 'claimed', claim }
      : { state: 'claimed', claim, reply: result.reply };
  }

  /**
   * Has the store run `process` in a transaction holding `key`, marked done with its reply in the
   * same commit. The store ends the transaction (rolled back, and rejecting with a retryable
   * GatewayError) when `process` outlives the lease, so the key is free for the service's retry.
   */
  inTransaction(
    key: string,
    derived: boolean,
    process: (tx: unknown) => Promise<unknown>,
  ): Promise<ClaimResult> {
    const store = this.#store;
    if (!store.processInTransaction) {
      return Promise.reject(new GatewayError('The dedupe store has no processInTransaction'));
    }
    return store.processInTransaction(key, process, this.#ttlOf(derived), this.#leaseMs);
  }

  /** How long the store remembers a key once done, or its kept reply: at most 10 minutes for a derived one. */
  #ttlOf(derived: boolean): number {
    return derived ? Math.min(this.#ttlMs, DERIVED_KEY_TTL_MS) : this.#ttlMs;
  }
}

/**
 * A delivery's hold on its idempotency key, for the lease: it keeps a CRM reply with the key, and
 * is completed or released as the outcome table says. Each call carries the store's `token`, so a
 * holder whose lease ran out never changes the claim of the attempt that took over.
 */
export class Claim {
  readonly #store: DedupeStore;
  readonly #ttlMs: number;

  constructor(
    store: DedupeStore,
    readonly key: string,
    readonly token: string | undefined,
    ttlMs: number,
  ) {
    this.#store = store;
    this.#ttlMs = ttlMs;
  }

  /**
   * Keeps a CRM reply with the key before anything else runs, so every later attempt of the
   * delivery is answered with it and the responder never runs twice for one key.
   */
  keepReply(reply: unknown): Promise<void> {
    return bounded(() => this.#store.keepReply(this.key, reply, this.#ttlMs, this.token), 'keepReply');
  }

  /** Applies an outcome's key action: `done` completes (with the reply), `released` releases. */
  apply(action: KeyAction, reply?: unknown): Promise<void> {
    if (action === 'done') {
      return bounded(() => this.#store.complete(this.key, this.#ttlMs, reply, this.token), 'complete');
    }
    if (action === 'released') return bounded(() => this.#store.release(this.key, this.token), 'release');
    return Promise.resolve();
  }
}

/** One store call, rejecting past {@link STORE_TIMEOUT_MS} (the call itself may still finish). */
async function bounded<T>(call: () => T | PromiseLike<T>, what: string): Promise<T> {
  try {
    const answer = call();
    // An answer that is not a promise is the answer (a store in memory answers at once): no timer.
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
