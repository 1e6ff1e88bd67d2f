/**
 * Entry point `messaging-gateway-sdk`: the client, its errors, the schemas and types of every
 * call, DeliveryTracker, and everything of `messaging-gateway-sdk/webhooks`.
 * @module
 */
export { GatewayClient } from './client.js';
export type { GatewayPromise, WithResponse } from './core/api-promise.js';
export type { Credential } from './core/credentials.js';
export * from './core/errors.js';
export type { Logger, LogLevel } from './core/logger.js';
export type { ClientOptions, FetchLike, RequestOptions } from './core/options.js';
export type { RateLimiterLike, RateLimitOptions, Release } from './core/rate-limiter.js';
export type { BackoffOptions } from './core/retry-policy.js';
export type { Channels } from './resources/channels.js';
export type { Messages } from './resources/messages.js';
export type { SendManyOptions, SendManyProgress, SendManyResult } from './resources/send-many.js';
export type { V3, V3Webhooks } from './resources/v3.js';
export type { EnsureOptions, Webhooks } from './resources/webhooks.js';
export * from './schemas/channels.js';
export * from './schemas/common.js';
export * from './schemas/keyboards.js';
export { type Lenient, lenientEnum } from './schemas/lenient.js';
export * from './schemas/messages.js';
export * from './schemas/subscriptions.js';
export {
  DeliveryTracker,
  type DeliveryTrackerEvents,
  type DeliveryTrackerOptions,
  type WaitForOptions,
} from './tracking/delivery-tracker.js';
export { DELIVERY_ORDER, type DeliveryStatus, type FinalStatus } from './tracking/status-order.js';
export * from './webhooks.js';
