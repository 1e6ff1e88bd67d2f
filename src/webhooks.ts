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
