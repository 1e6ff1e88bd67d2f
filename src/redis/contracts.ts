/**
 * The contracts the Redis stores fulfil, as the client and the handler declare them: the client's
 * `rateLimit` option accepts any {@link RateLimiterLike}; `WebhookHandler`'s `dedupe` option takes
 * a `DedupeStore`. Types only: this entry loads nothing of them at run time.
 * @module
 */

export type { RateLimiterLike, Release } from '../core/rate-limiter.js';
export type { ClaimResult, DedupeStore } from '../webhooks/receive/dedupe-store.js';
