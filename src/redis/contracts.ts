/**
 * The contracts the Redis stores fulfil, declared structurally so this entry needs nothing else:
 * the client's `rateLimit` option accepts any {@link RateLimiterLike}; `WebhookHandler`'s `dedupe`
 * option takes the `DedupeStore` of the webhooks entry.
 * @module
 */

export type { RateLimiterLike, Release } from '../core/rate-limiter.js';
export type { ClaimResult, DedupeStore } from '../webhooks/dedupe.js';
