import { type Issue, WebhookParseError } from '../core/errors.js';
import type { V2Webhook } from '../schemas/events-v2.js';
import type { V3Webhook } from '../schemas/events-v3.js';
import { readBody, type WebhookBody } from './body.js';
import { type Decoded, decodeV2, isRecord } from './decode-v2.js';
import { decodeV3 } from './decode-v3.js';

/** Any decoded delivery: a discriminated union on `api`, then on `event` (v2) or `type` (v3). */
export type Webhook = V2Webhook | V3Webhook;

/** The result of `safeParseWebhook`: never throws. */
export type SafeParseWebhookResult<W = Webhook> =
  | { success: true; data: W }
  | { success: false; error: WebhookParseError };

/** The API surface that sent a delivery. */
export type Surface = 'v2' | 'v3';

/** A v2 delivery names its event; a v3 body has one property per kind instead. */
export function surfaceOf(value: unknown): Surface {
  return isRecord(value) && 'event' in value ? 'v2' : 'v3';
}

/** Decodes a parsed body as a delivery of `surface`. */
export function decodeAs(value: unknown, surface: Surface): Decoded<Webhook> {
  return surface === 'v2' ? decodeV2(value) : decodeV3(value);
}

/** Decodes without ever throwing; internal core of every parse function. */
export function safeDecode(body: unknown, surface?: Surface): SafeParseWebhookResult {
  try {
    const read = readBody(body);
    if (!read.ok) return { success: false, error: read.error };
    const decoded = decodeAs(read.value, surface ?? surfaceOf(read.value));
    if (decoded.ok) return { success: true, data: decoded.webhook };
    return { success: false, error: new WebhookParseError(decoded.issues, read.raw) };
  } catch (cause) {
    // Nothing but a WebhookParseError ever escapes, whatever the input.
    const issues: Issue[] = [{ path: [], message: `the body could not be decoded (${String(cause)})` }];
    return { success: false, error: new WebhookParseError(issues, body, { cause }) };
  }
}

function orThrow<W>(result: SafeParseWebhookResult): W {
  if (!result.success) throw result.error;
  return result.data as W;
}

/**
 * Decodes a webhook delivery of API v2 or v3 into a {@link Webhook}.
 * @param body the raw body (string or bytes, UTF-8) or a value a body parser already made
 * @throws WebhookParseError listing every structural problem, with the raw body
 * @example
 * ```ts
 * const webhook = parseWebhook(rawBody);
 * if (webhook.api === 'v2' && webhook.event === 'message.add') {
 *   for (const message of webhook.data) console.log(message.text);
 * }
 * ```
 */
export function parseWebhook(body: WebhookBody): Webhook {
  return orThrow(safeDecode(body));
}

/** Like {@link parseWebhook}, but returns `{ success, data | error }` and never throws. */
export function safeParseWebhook(body: WebhookBody): SafeParseWebhookResult {
  return safeDecode(body);
}

/** Decodes a delivery known to come from API v2. @throws WebhookParseError */
export function parseV2Webhook(body: WebhookBody): V2Webhook {
  return orThrow(safeDecode(body, 'v2'));
}

/** Decodes a delivery known to come from API v3. @throws WebhookParseError */
export function parseV3Webhook(body: WebhookBody): V3Webhook {
  return orThrow(safeDecode(body, 'v3'));
}
