/**
 * The contracts the Redis stores fulfil, declared structurally so this entry needs nothing else:
 * the client's `rateLimit` option accepts any {@link RateLimiterLike}, and `WebhookHandler`'s
 * `dedupe` option any {@link DedupeStore} of this shape.
 * @module
 */

/** Gives back the slot taken by `acquire`; call it when the request has its answer. */
export type Release = () => void;

/** A rate limiter the client can share with other clients, in this process or others. */
export interface RateLimiterLike {
  /**
   * Resolves when a request may start. An aborted `signal` rejects with its reason and leaves
   * the queue at once.
   */
  acquire(signal?: AbortSignal): Promise<Release>;
  /** A 429 was seen: hold every start for `ms`. */
  pause(ms: number): void | Promise<void>;
}

/** What a {@link DedupeStore} knows of a delivery's idempotency key. */
export type ClaimResult = { state: 'claimed' } | { state: 'processing' } | { state: 'done'; reply?: unknown };

/**
 * Where idempotency keys are kept: a key is claimed for a lease, done (remembering a CRM reply),
 * or forgotten. A claim whose holder died expires with its lease.
 */
export interface DedupeStore {
  /**
   * Atomically: `claimed` (go ahead, the key is yours for `leaseMs`), `processing` (held by
   * someone else whose lease is alive) or `done` (completed earlier, with the stored reply if any).
   */
  claim(key: string, leaseMs: number): ClaimResult | Promise<ClaimResult>;
  /** Marks the key done for `ttlMs`, remembering the reply (JSON-serialisable). */
  complete(key: string, ttlMs: number, reply?: unknown): void | Promise<void>;
  /** Forgets the key, so the service's next attempt is processed. */
  release(key: string): void | Promise<void>;
}
