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
export * from './schemas/events-v2.js';
export * from './schemas/events-v3.js';
export * from './schemas/replies.js';
export { createFetchHandler } from './webhooks/adapters/fetch.js';
export {
  createNodeMiddleware,
  type NodeMiddlewareOptions,
  type NodeRequestLike,
  type NodeResponseLike,
} from './webhooks/adapters/node.js';
export type { WebhookBody } from './webhooks/body.js';
export { type DedupeStore, type MemoryDedupeOptions, MemoryDedupeStore } from './webhooks/dedupe.js';
export type {
  ErrorContext,
  ResponderKind,
  Responders,
  V3WebhookOf,
  WebhookEvents,
} from './webhooks/events.js';
export { isInbound, isOutbound } from './webhooks/guards.js';
export { WebhookHandler, type WebhookHandlerOptions } from './webhooks/handler.js';
export type { WebhookRequest, WebhookResponse } from './webhooks/http.js';
export {
  parseV2Webhook,
  parseV3Webhook,
  parseWebhook,
  type SafeParseWebhookResult,
  safeParseWebhook,
  type Webhook,
} from './webhooks/parse.js';
export { qrToPng } from './webhooks/qr.js';
