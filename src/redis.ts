/**
 * Entry point `messaging-gateway-sdk/redis`: the shared state of a fleet of instances, on a Redis
 * the user already runs. Pass an `ioredis` (v5 or later) or `node-redis` (v4 or later) client
 * in; this entry loads neither (both are optional peer dependencies).
 *
 * - {@link redisRateLimiter}: one request rate for every process sending through an account.
 * - {@link redisDedupeStore}: a delivery is processed by exactly one instance.
 * - {@link redisDeliveryStore}: `DeliveryTracker.waitFor` on one instance sees statuses that
 *   reach any instance.
 * - {@link redisWindowStore}: `ConversationWindows` judge a send on any instance by what any
 *   instance heard.
 *
 * Redis unreachable: every call fails within its `timeoutMs` with a `GatewayError` whose
 * `retryable` is true and whose message says Redis is unreachable.
 * @module
 */
export type {
  IoRedisLike,
  NodeRedisClusterLike,
  NodeRedisLike,
  RedisCallOptions,
  RedisClientLike,
} from './redis/connection.js';
export type { ClaimResult, DedupeStore, RateLimiterLike, Release } from './redis/contracts.js';
export { RedisDedupeStore, type RedisDedupeStoreOptions, redisDedupeStore } from './redis/dedupe-store.js';
export {
  RedisDeliveryStore,
  type RedisDeliveryStoreOptions,
  redisDeliveryStore,
} from './redis/delivery-store.js';
export { RedisRateLimiter, type RedisRateLimiterOptions, redisRateLimiter } from './redis/rate-limiter.js';
export { RedisWindowStore, type RedisWindowStoreOptions, redisWindowStore } from './redis/window-store.js';
export type { DeliveryFeed, DeliveryStore, StatusEntry } from './tracking/delivery-store.js';
export type { ChannelRecord, ChatFacts, ConversationStart, WindowStore } from './tracking/window-store.js';
