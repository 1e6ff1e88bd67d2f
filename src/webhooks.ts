/**
 * Entry point `messaging-gateway-sdk/webhooks`: decoding and handling of webhook deliveries.
 * It loads no HTTP client, so it runs in any Fetch-API runtime (Node, Bun, Deno, edge workers).
 * @module
 */
export {
  GatewayError,
  type GatewayErrorOptions,
  type Issue,
  WebhookAuthError,
  WebhookParseError,
} from './core/errors.js';
export type { AnyListener, EventMap, ListenerOf, Listeners } from './internal/listeners.js';
export { qrToPng } from './resources/channel-connect/qr-to-png.js';
export type { Surface } from './schemas/constants.js';
// Types and constants only: the schema values live in `messaging-gateway-sdk/schemas`.
export {
  type ChannelLifecycle,
  type ChannelQrUpdate,
  type ChannelStatusUpdate,
  type ChannelWabaTierUpdate,
  type CrmContactAdd,
  type CrmDealAdd,
  EVENT_CHAT_TYPES,
  type EventRecipient,
  type GroupChatMembershipsUpdate,
  type KnownV2Event,
  MEMBER_STATUSES,
  MESSAGE_STATUSES,
  type MessageAdd,
  type MessageDelete,
  type MessageEdit,
  type MessageStatusUpdate,
  type RejectedItem,
  TEMPLATE_STATUSES,
  type UnknownV2Webhook,
  type V2Payload,
  type V2Webhook,
  type V2WebhookOf,
  type WabaTemplateStatusUpdate,
  type WebhookMeta,
} from './schemas/events-v2.js';
export {
  type UnknownV3Webhook,
  V3_CHANNEL_STATES,
  V3_ERROR_CODES,
  V3_MESSAGE_STATUSES,
  V3_MESSAGE_TYPES,
  V3_STATUS_VALUES,
  type V3ChannelsUpdates,
  type V3ChannelUpdate,
  type V3CreateContact,
  type V3CreateContactWebhook,
  type V3CreateDeal,
  type V3CreateDealWebhook,
  type V3Error,
  type V3Message,
  type V3MessagesAndStatuses,
  type V3Status,
  type V3TemplateStatus,
  type V3TemplateStatusWebhook,
  type V3Test,
  type V3Webhook,
  type V3WebhookType,
} from './schemas/events-v3.js';
export {
  FAILURE_REASON_PREFIXES,
  FAILURE_REASONS,
  type FailureReason,
  isFailureReason,
  type KnownFailureReason,
  type MessageFailureReason,
  type PrefixedFailureReason,
} from './schemas/reasons.js';
export type {
  ContactAddReply,
  CreateContactReply,
  CreateDealReply,
  DealAddReply,
} from './schemas/replies.js';
export {
  createFastifyPlugin,
  type FastifyInstanceLike,
  type FastifyPluginOptions,
  type FastifyReplyLike,
  type FastifyRequestLike,
} from './webhooks/adapters/fastify.js';
export {
  type CachingRequestLike,
  createFetchHandler,
  type FetchContextLike,
  type FetchRequestLike,
} from './webhooks/adapters/fetch.js';
export {
  createKoaMiddleware,
  type KoaContextLike,
  type KoaMiddlewareOptions,
} from './webhooks/adapters/koa.js';
export {
  createLambdaHandler,
  type LambdaHttpEvent,
  type LambdaHttpResult,
} from './webhooks/adapters/lambda.js';
export {
  createNodeMiddleware,
  type NodeMiddlewareOptions,
  type NodeRequestLike,
  type NodeResponseLike,
} from './webhooks/adapters/node.js';
export { isInbound, isOutbound } from './webhooks/decode/guards.js';
export type { WebhookBody } from './webhooks/decode/json-body.js';
export {
  parseV2Webhook,
  parseV3Webhook,
  parseWebhook,
  type SafeParseWebhookResult,
  safeParseWebhook,
  type Webhook,
} from './webhooks/decode/parse.js';
export type { ClaimResult, DedupeStore } from './webhooks/receive/dedupe-store.js';
export type {
  ErrorContext,
  ListenerContext,
  ResponderContext,
  ResponderKind,
  Responders,
  V3WebhookOf,
  WebhookEvents,
} from './webhooks/receive/events.js';
export { type HandleOptions, WebhookHandler } from './webhooks/receive/handler.js';
export type { HandlerSource } from './webhooks/receive/handler-source.js';
export { type MemoryDedupeOptions, MemoryDedupeStore } from './webhooks/receive/memory-dedupe-store.js';
export type { DispatchMode, WebhookHandlerOptions, WebhookQueue } from './webhooks/receive/options.js';
export { type KeyAction, OUTCOMES, type Outcome, type OutcomeRow } from './webhooks/receive/outcomes.js';
export type { WebhookRequest, WebhookResponse } from './webhooks/receive/request.js';
