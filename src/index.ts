/**
 * Entry point `messaging-gateway-sdk`: the client, its errors, the types of every call,
 * DeliveryTracker, ConversationWindows, and everything of `messaging-gateway-sdk/webhooks`. The zod schemas (runtime
 * values) are in `messaging-gateway-sdk/schemas`.
 * @module
 */
export { GatewayClient } from './client.js';
export { API_ERROR_CODES, type ApiErrorCode, type KnownApiErrorCode } from './core/api-codes.js';
export type { GatewayPromise, WithResponse } from './core/api-promise.js';
export type { Credential } from './core/credentials.js';
export * from './core/errors.js';
export type { Logger, LogLevel } from './core/logger.js';
export type { ChannelFacts, ClientOptions, FetchLike, RequestOptions, WindowGuard } from './core/options.js';
export type { RateLimiterLike, RateLimitOptions, Release } from './core/rate-limiter.js';
export type { BackoffOptions } from './core/retry-policy.js';
export type { ChannelCalls, ChannelConnection } from './resources/channel-connect/connection.js';
export type { ConnectOptions, ConnectStep } from './resources/channel-connect/steps.js';
export type { Channels } from './resources/channels.js';
export type { Messages } from './resources/messages.js';
export type { SendManyOptions, SendManyProgress, SendManyResult } from './resources/send-many.js';
export type { V3, V3Webhooks } from './resources/v3.js';
export type { EnsureOptions, Webhooks } from './resources/webhooks.js';
// Types and constants only: the schema values live in `messaging-gateway-sdk/schemas`, so an
// editor's auto-import offers the SDK's classes and types, not `channel` or `recipient`.
export type {
  Channel,
  ChannelCredentials,
  CreateChannelParams,
  CreatedChannel,
  DeleteChannelParams,
  PairingCode,
  PairingCodeParams,
  ReinitChannelParams,
  Submit2faParams,
} from './schemas/channels.js';
export {
  type Attachment,
  type ChatType,
  MAX_FILE_BYTES,
  type Recipient,
  type Transport,
} from './schemas/common.js';
export {
  CHANNEL_REASONS,
  CHANNEL_STATUSES,
  CHAT_TYPES,
  TEXT_LIMITS,
  TIERS,
  TRANSPORTS,
  V2_EVENTS,
  V3_TEST_POST_FAILED,
} from './schemas/constants.js';
export type { Keyboard, MaxBotKeyboard, TelegramKeyboard, WapiKeyboard } from './schemas/keyboards.js';
export type { Lenient } from './schemas/lenient.js';
export {
  type EditMessageParams,
  type MessageRef,
  type MessagesDumpParams,
  MORE_THAN_ONE_CONTENT,
  type SendMessageParams,
  type SendMessageResult,
  type Template,
} from './schemas/messages.js';
export {
  type NewSubscription,
  type Subscription,
  type SubscriptionUpdate,
  type V2EventName,
  V3_SWITCHES,
  type V3WebhookSettings,
  type V3WebhookSettingsParams,
} from './schemas/subscriptions.js';
export {
  type ConversationCount,
  type ConversationWindow,
  ConversationWindows,
  type ConversationWindowsOptions,
} from './tracking/conversation-windows.js';
export type { DeliveryFeed, DeliveryStore, StatusEntry } from './tracking/delivery-store.js';
export {
  DeliveryTracker,
  type DeliveryTrackerEvents,
  type DeliveryTrackerOptions,
  type WaitForOptions,
} from './tracking/delivery-tracker.js';
export { MemoryWindowStore, type MemoryWindowStoreOptions } from './tracking/memory-window-store.js';
export { DELIVERY_ORDER, type DeliveryStatus, type FinalStatus } from './tracking/status-order.js';
export type {
  ChannelRecord,
  ChatFacts,
  ConversationStart,
  WindowStore,
} from './tracking/window-store.js';
export * from './webhooks.js';
