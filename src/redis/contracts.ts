/**
 * The contracts the Redis stores fulfil, declared structurally so this entry needs nothing else:
 * the client's `rateLimit` option accepts any {@link RateLimiterLike}; `WebhookHandler`'s `dedupe`
 * option takes the `DedupeStore` of the webhooks entry.
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

export type { ClaimResult, DedupeStore } from '../webhooks/dedupe.js';
