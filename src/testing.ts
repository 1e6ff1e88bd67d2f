/**
 * Entry point `messaging-gateway-sdk/testing`: a stateful fake of the gateway on 127.0.0.1 and
 * builders of valid webhook deliveries, for the tests of code built on the SDK. It loads nothing
 * at import time but `node:` modules.
 * @module
 */
export {
  type BuildWebhookOptions,
  buildWebhook,
  DELIVERY_KINDS,
  type DeepPartial,
  type DeliveryBody,
  type DeliveryKind,
  isDeliveryKind,
  type V2DeliveryBody,
  type V3DeliveryBodies,
  type V3DeliveryKind,
} from './testing/build-webhook.js';
export type { ReplyVerdict } from './testing/crm-replies.js';
export type { DeliveryFailure, DeliveryOptions, DeliveryRecord } from './testing/deliveries.js';
export { createFakeGateway, type FakeGateway, type FakeGatewayOptions } from './testing/fake-gateway.js';
export { type InboundMessage, UNREGISTERED_PREFIX } from './testing/payloads.js';
export type { FailAnswer, RecordedRequest } from './testing/requests.js';
export type { FakeGatewaySimulate } from './testing/simulate.js';
export type {
  FakeChannel,
  FakeMessage,
  FakeSubscription,
  FakeV3Settings,
  SeededChannel,
} from './testing/state.js';
