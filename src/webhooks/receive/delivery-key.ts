import { GatewayError } from '../../core/errors.js';
import type { Webhook } from '../decode/parse.js';
import type { ReportContext, Reporter } from './reporting.js';
import { responderKind } from './responder.js';

/** Delivery kinds whose missing idempotency key is reported (once each). */
const MAX_UNKEYED_KINDS = 100;

const encoder = new TextEncoder();

/**
 * The idempotency key a delivery claims, by the first rule that fits:
 * - a v2 delivery's own `meta.idempotency_key` (an empty or blank one counts as none);
 * - a CRM request without one (every v3 createContact and createDeal, a v2 contact_add or deal_add
 *   without it): a key derived from its kind and its body's JSON value, so the service's retry of
 *   the same request claims the same key and gets the same reply, never a second CRM entity. It
 *   is remembered for at most `DERIVED_KEY_TTL_MS` (10 minutes): the same body later is a new
 *   request;
 * - any other delivery has none: it is processed without dedupe, and 'error' says so once per
 *   kind (v3 deliveries carry no key by design, so they are not reported).
 */
export class DeliveryKeys {
  readonly #reporter: Reporter;
  readonly #unkeyed = new Set<string>();

  constructor(reporter: Reporter) {
    this.#reporter = reporter;
  }

  /** A v2 delivery's own `meta.idempotency_key`, unless it is missing, empty or blank. */
  givenKey(webhook: Webhook): string | undefined {
    const given = webhook.api === 'v2' ? webhook.meta.idempotency_key : undefined;
    return given !== undefined && given !== null && String(given).trim() !== '' ? String(given) : undefined;
  }

  /**
   * For a delivery without a key of its own: the key derived from a CRM request's kind and `body`
   * (the value its JSON parsed to), or undefined for any other delivery (a v2 one reported, once
   * per kind).
   */
  async derivedKey(webhook: Webhook, body: unknown, context: ReportContext): Promise<string | undefined> {
    const kind = responderKind(webhook);
    if (kind) return derivedKey(kind, body);
    if (webhook.api === 'v2') this.#reportUnkeyed(String(webhook.event), context);
    return undefined;
  }

  #reportUnkeyed(kind: string, context: ReportContext): void {
    if (this.#unkeyed.size >= MAX_UNKEYED_KINDS || this.#unkeyed.has(kind)) return;
    this.#unkeyed.add(kind);
    const why = `a ${kind} delivery came without meta.idempotency_key: such deliveries are processed without dedupe`;
    this.#reporter.report(new GatewayError(why), context, 'dedupe');
  }
}

/**
 * `<kind>:sha256:<hex of the SHA-256 of JSON.stringify(body)>`, `body` being the parsed value. Not
 * the bytes as they arrived: one delivery may reach the handler as text on one attempt and as the
 * value a framework's parser made on the next (another instance, other middleware), and its text
 * may carry a BOM, spaces or escapes (`\/`, `\u0410`) that the value does not. Web Crypto, so the
 * `/webhooks` entry runs in any Fetch-API runtime (Node, Bun, Deno, Workers).
 */
export async function derivedKey(kind: string, body: unknown): Promise<string> {
  const bytes = encoder.encode(JSON.stringify(body));
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return `${kind}:sha256:${hex}`;
}
