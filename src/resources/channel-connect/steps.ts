import type { Channel } from '../../schemas/channels.js';
import type { Webhook } from '../../webhooks/decode/parse.js';

/**
 * One step of `channels.connect`, by `kind`: `created` (the channel exists), `qr` (show this
 * PNG; a new QR replaces the last), `pairing-code` (type this code in the whatsapp app), `url`
 * (wapi: send the user to this address), `password` (call `connection.submit2fa(code)`), and
 * `active`, the last step.
 */
export type ConnectStep =
  | { kind: 'created'; channelId: string; transport: string }
  | { kind: 'qr'; channelId: string; png: Uint8Array }
  | { kind: 'pairing-code'; channelId: string; code: string; phone: string | null }
  | { kind: 'url'; channelId: string; url: string }
  | { kind: 'password'; channelId: string }
  | { kind: 'active'; channelId: string; channel: Channel };

/**
 * The `hooks` of `channels.connect`: the `WebhookHandler` (from `messaging-gateway-sdk/webhooks`)
 * receiving the account's deliveries. The flow hears each delivery as that handler decodes it,
 * before any dispatch, so it works whatever the handler's `dispatch` (a queue function included);
 * it adds no listener of its own. A QR that cannot be read is reported on the handler's `'error'`.
 */
export interface ConnectHooks {
  /** The handler's own `on`: it marks the object as a handler here; the flow never calls it. */
  on(event: 'webhook', listener: (webhook: Webhook) => void): unknown;
  /** The handler's own `off`: as `on`, never called by the flow. */
  off(event: 'webhook', listener: (webhook: Webhook) => void): unknown;
}

/** Options of `channels.connect`. */
export interface ConnectOptions {
  /** The WebhookHandler that receives this account's deliveries (API v2 or v3). */
  hooks: ConnectHooks;
  /**
   * Reject with GatewayTimeoutError when the channel is not active after this long (ms): from 1
   * up to 2³¹−1, else a GatewayValidationError before any channel is created. @default 300000
   */
  timeoutMs?: number;
  /** Stops the flow: the iteration rejects with GatewayAbortError and nothing stays subscribed. */
  signal?: AbortSignal;
  /**
   * whatsapp: ask for a pairing code for this phone (digits only, no plus sign) after the first QR,
   * to type in the app instead of scanning.
   */
  pairingPhone?: string;
  /**
   * When no webhook about the channel arrived for this long, read `channels.get` (the delivery may
   * have reached another instance of a fleet). At least 1000 (and at most 2³¹−1), else a
   * GatewayValidationError before any channel is created. @default 5000
   */
  pollIntervalMs?: number;
}
