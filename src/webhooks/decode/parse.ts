import { type Issue, WebhookParseError } from '../../core/errors.js';
import { isRecord } from '../../internal/is-record.js';
import type { Surface } from '../../schemas/constants.js';
import type { V2Webhook } from '../../schemas/events-v2.js';
import type { V3Webhook } from '../../schemas/events-v3.js';
import type { Decoders } from './decoders.js';
import { readJsonBody, type WebhookBody } from './json-body.js';
import { type Decoded, decodeV2 } from './v2.js';
import { decodeV3 } from './v3.js';

/** Any decoded delivery: a discriminated union on `api`, then on `event` (v2) or `type` (v3). */
export type Webhook = V2Webhook | V3Webhook;

/** The result of `safeParseWebhook`: never throws. */
export type SafeParseWebhookResult<W = Webhook> =
  | { success: true; data: W }
  | { success: false; error: WebhookParseError };

/**
 * A v2 delivery names its event and carries `meta` (its envelope); a v3 body has one property per
 * kind instead. A body with either v2 field is read as v2, so a broken v2 envelope is reported as
 * such rather than taken for a v3 body of an unknown kind.
 */
export function surfaceOf(value: unknown): Surface {
  return isRecord(value) && ('event' in value || 'meta' in value) ? 'v2' : 'v3';
}

/**
 * Decodes a parsed body as a delivery of `surface`. The decoded webhook lists the items that did
 * not decode in `rejected`; only a broken envelope, or a body none of whose items decode, fails.
 */
export function decodeAs(value: unknown, surface: Surface, decoders?: Decoders): Decoded<Webhook> {
  return surface === 'v2' ? decodeV2(value, decoders) : decodeV3(value, decoders);
}

/**
 * A copy of the plain objects and arrays of a value a body parser made, so that the decoded
 * webhook never shares an object with the caller's (JSON.parse of text or bytes is private
 * already). A loop with an explicit stack: no depth of nesting can overflow the call stack.
 */
export function copyParsed(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const root = Array.isArray(value) ? [...value] : { ...value };
  const stack: (Record<string, unknown> | unknown[])[] = [root as Record<string, unknown>];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    const keys = Object.keys(node);
    for (const key of keys) {
      const child = (node as Record<string, unknown>)[key];
      if (typeof child !== 'object' || child === null) continue;
      const proto = Object.getPrototypeOf(child);
      if (!Array.isArray(child) && proto !== Object.prototype && proto !== null) continue;
      const copy = Array.isArray(child) ? [...child] : { ...child };
      (node as Record<string, unknown>)[key] = copy;
      stack.push(copy as Record<string, unknown>);
    }
  }
  return root;
}

/** Decodes without ever throwing; internal core of every parse function. */
export function safeDecode(body: unknown, surface?: Surface, decoders?: Decoders): SafeParseWebhookResult {
  try {
    const read = readJsonBody(body);
    if (!read.ok) return { success: false, error: read.error };
    const value = read.raw === read.value ? copyParsed(read.value) : read.value;
    const decoded = decodeAs(value, surface ?? surfaceOf(value), decoders);
    if (decoded.ok) return { success: true, data: decoded.webhook };
    const omitted = decoded.omitted ?? 0;
    return { success: false, error: new WebhookParseError(decoded.issues, read.raw, { omitted }) };
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
 * Decodes a webhook delivery of API v2 or v3 into a {@link Webhook}. Each item of the delivery
 * is decoded on its own: the ones that fail are listed in the webhook's `rejected` (with their
 * issues and raw value) and the others are kept.
 * @param body the raw body (string or bytes, UTF-8) or a value a body parser already made
 * @throws WebhookParseError when the envelope is broken or no item decodes, listing at most 100
 *   issues by path, with the raw body
 * @example
 * ```ts
 * const webhook = parseWebhook(rawBody);
 * if (webhook.api === 'v2' && webhook.event === 'message.add') {
 *   for (const message of webhook.data) console.log(message.text);
 *   for (const bad of webhook.rejected) log.warn(bad.issues, bad.raw);
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
