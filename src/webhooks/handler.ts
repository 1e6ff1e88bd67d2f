import { EventEmitter } from 'eventemitter3';
import { GatewayError, WebhookAuthError, WebhookParseError } from '../core/errors.js';
import { readBody } from './body.js';
import { type DedupeStore, MemoryDedupeStore } from './dedupe.js';
import {
  type ErrorContext,
  eventName,
  type ResponderKind,
  type Responders,
  type WebhookEvents,
} from './events.js';
import {
  bearer,
  header,
  jsonResponse,
  maskSecret,
  parseUrl,
  type WebhookRequest,
  type WebhookResponse,
} from './http.js';
import { decodeAs, surfaceOf, type Webhook } from './parse.js';
import { responderKind, runResponder } from './respond.js';
import { secureEquals } from './secure-compare.js';

/** Options of {@link WebhookHandler}. */
export interface WebhookHandlerOptions {
  /** The crmKey: v3 deliveries must carry `Authorization: Bearer <crmKey>` (spec: Authentication 5). */
  v3AuthToken?: string;
  /** Deliveries must carry `?secret=<value>` in their URL; v2 deliveries have no signature, so this protects them. */
  secret?: string;
  /**
   * A v2 delivery whose `meta.idempotency_key` was seen is answered 200 and not dispatched again.
   * `true` keeps keys in memory (bounded); pass a {@link DedupeStore} to share them. @default true
   */
  dedupe?: boolean | DedupeStore;
  /** How long a seen key is remembered (ms). @default 86400000 */
  dedupeTtlMs?: number;
  /** Bodies larger than this are answered 413 (bytes). @default 5 MiB */
  maxBodyBytes?: number;
  /**
   * false: answer 200 at once and run listeners after (spec: answer as early as possible).
   * true: run listeners before answering, for serverless hosts that stop work after the response.
   * @default false
   */
  awaitListeners?: boolean;
  /** Time a responder has to reply, under the service's 30 s limit (ms). @default 25000 */
  replyTimeoutMs?: number;
  /** Deliveries whose listeners may run in the background at once; past it, 503 so the service retries. @default 10000 */
  maxPendingDispatches?: number;
}

type Ctx = Omit<ErrorContext, 'stage'>;

/**
 * Receives webhook deliveries of API v2 and v3: checks, decodes, deduplicates, answers, and
 * dispatches each to typed listeners. Framework-free: {@link WebhookHandler.handle} takes
 * `{ method, url, headers, body }` and returns `{ status, headers, body }`; the node and fetch
 * adapters are thin translations of it.
 * @example
 * ```ts
 * const hooks = new WebhookHandler({ secret: process.env.HOOK_SECRET });
 * hooks.on('message.add', ({ data }) => data.forEach((m) => console.log(m.text)));
 * hooks.on('error', (error, context) => log.error(error, context.rawBody));
 * ```
 */
export class WebhookHandler extends EventEmitter<WebhookEvents> {
  readonly #options: Required<Omit<WebhookHandlerOptions, 'v3AuthToken' | 'secret' | 'dedupe'>>;
  readonly #v3AuthToken: string | undefined;
  readonly #secret: string | undefined;
  readonly #dedupe: DedupeStore | undefined;
  readonly #responders = new Map<ResponderKind, Responders[ResponderKind]>();
  readonly #pending = new Set<Promise<void>>();

  constructor(options: WebhookHandlerOptions = {}) {
    super();
    this.#v3AuthToken = options.v3AuthToken || undefined;
    this.#secret = options.secret || undefined;
    const dedupe = options.dedupe ?? true;
    this.#dedupe = dedupe === true ? new MemoryDedupeStore() : dedupe === false ? undefined : dedupe;
    this.#options = {
      dedupeTtlMs: options.dedupeTtlMs ?? 86_400_000,
      maxBodyBytes: options.maxBodyBytes ?? 5 * 1024 * 1024,
      awaitListeners: options.awaitListeners ?? false,
      replyTimeoutMs: options.replyTimeoutMs ?? 25_000,
      maxPendingDispatches: options.maxPendingDispatches ?? 10_000,
    };
  }

  /** Largest body accepted (bytes); adapters stop reading past it. */
  get maxBodyBytes(): number {
    return this.#options.maxBodyBytes;
  }

  /**
   * Registers the reply to a CRM request (contact_add, deal_add, v3 createContact, createDeal).
   * The reply is checked against the spec's reply schema and sent as the answer, within
   * `replyTimeoutMs`; a missing, failing, late or invalid reply is answered 5xx and reported.
   */
  respond<K extends ResponderKind>(kind: K, responder: Responders[K]): this {
    this.#responders.set(kind, responder);
    return this;
  }

  /** Resolves when every listener started so far has finished (for tests and graceful shutdown). */
  async drain(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  /** Handles one delivery: the framework-free core behind every adapter. Never throws. */
  async handle(request: WebhookRequest): Promise<WebhookResponse> {
    const ctx: Ctx = { request: { method: request.method, url: request.url } };
    try {
      return await this.#handle(request, ctx);
    } catch (error) {
      this.#report(asGatewayError(error), { ...ctx, stage: 'read' });
      return jsonResponse(500, { error: 'internal_error' });
    }
  }

  async #handle(request: WebhookRequest, ctx: Ctx): Promise<WebhookResponse> {
    if (request.method.toUpperCase() !== 'POST') {
      return jsonResponse(405, { error: 'method_not_allowed' }, { allow: 'POST' });
    }
    if (tooLarge(request.body, this.#options.maxBodyBytes))
      return jsonResponse(413, { error: 'body_too_large' });
    if (
      this.#secret &&
      !(await secureEquals(parseUrl(request.url).searchParams.get('secret') ?? '', this.#secret))
    ) {
      return this.#unauthorized('the secret query value is missing or wrong', ctx);
    }
    const read = readBody(request.body);
    if (!read.ok) return this.#invalid(read.error, { ...ctx, rawBody: request.body });
    const context = { ...ctx, rawBody: read.raw };
    const surface = surfaceOf(read.value);
    if (surface === 'v3' && this.#v3AuthToken) {
      const token = bearer(header(request.headers, 'authorization'));
      if (!token || !(await secureEquals(token, this.#v3AuthToken))) {
        return this.#unauthorized('a v3 delivery without the right Authorization: Bearer crmKey', context);
      }
    }
    const decoded = decodeAs(read.value, surface);
    if (!decoded.ok) return this.#invalid(new WebhookParseError(decoded.issues, read.raw), context);
    return this.#accept(decoded.webhook, { ...context, webhook: decoded.webhook });
  }

  async #accept(webhook: Webhook, ctx: Ctx): Promise<WebhookResponse> {
    const key = webhook.api === 'v2' ? webhook.meta.idempotency_key : undefined;
    if (key !== undefined && this.#dedupe && !(await this.#dedupe.claim(key, this.#options.dedupeTtlMs))) {
      return jsonResponse(200, { ok: true, duplicate: true });
    }
    const kind = responderKind(webhook);
    let answer = OK;
    if (kind) {
      try {
        answer = jsonResponse(
          200,
          await runResponder(kind, this.#responders.get(kind), webhook, this.#options.replyTimeoutMs),
        );
      } catch (error) {
        // Forget the key: the service sees the 5xx and may send the request again.
        if (key !== undefined) await this.#dedupe?.release(key);
        this.#report(asGatewayError(error), { ...ctx, stage: 'respond' });
        return jsonResponse(500, { error: 'responder_failed' });
      }
    }
    if (this.#options.awaitListeners) {
      await this.#dispatch(webhook, ctx);
    } else if (this.#pending.size >= this.#options.maxPendingDispatches) {
      if (key !== undefined) await this.#dedupe?.release(key);
      return jsonResponse(503, { error: 'busy' }, { 'retry-after': '5' });
    } else {
      const task = this.#dispatch(webhook, ctx).finally(() => this.#pending.delete(task));
      this.#pending.add(task);
    }
    return answer;
  }

  /** Runs every listener of the delivery's kind and of 'webhook'; each failure goes to 'error'. */
  async #dispatch(webhook: Webhook, ctx: Ctx): Promise<void> {
    const name = eventName(webhook);
    const listeners = [...this.listeners(name), ...this.listeners('webhook')] as ((w: Webhook) => unknown)[];
    await Promise.all(
      listeners.map(async (listener) => {
        try {
          await listener(webhook);
        } catch (error) {
          const wrapped = new GatewayError(`A listener of ${String(name)} failed: ${messageOf(error)}`, {
            cause: error,
          });
          this.#report(wrapped, { ...ctx, stage: 'listener' });
        }
      }),
    );
  }

  #unauthorized(why: string, ctx: Ctx): WebhookResponse {
    this.#report(new WebhookAuthError(`Webhook delivery refused: ${why}`), { ...ctx, stage: 'auth' });
    return jsonResponse(401, { error: 'unauthorized' });
  }

  #invalid(error: WebhookParseError, ctx: Ctx): WebhookResponse {
    this.#report(error, { ...ctx, stage: 'decode' });
    return jsonResponse(400, { error: 'invalid_webhook', message: error.message.slice(0, 500) });
  }

  /** Reports on 'error'; with no 'error' listener, on the console, so nothing is silently lost. */
  #report(error: GatewayError, raw: ErrorContext): void {
    // The secret is masked here, on the error path only, not on every delivery.
    const context = { ...raw, request: { ...raw.request, url: maskSecret(raw.request.url) } };
    if (this.listenerCount('error') === 0) {
      console.error(`[messaging-gateway-sdk] ${context.stage}: ${error.message}`);
      return;
    }
    try {
      this.emit('error', error, context);
    } catch {
      // An 'error' listener that throws must not turn a delivery into a crash.
    }
  }
}

/** The usual answer, built once. */
const OK = jsonResponse(200, { ok: true });

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function asGatewayError(error: unknown): GatewayError {
  return error instanceof GatewayError ? error : new GatewayError(messageOf(error), { cause: error });
}

/** Whether a text or bytes body is over the limit (a parsed value was bounded by its parser). */
function tooLarge(body: unknown, max: number): boolean {
  if (typeof body === 'string') {
    if (body.length > max) return true;
    return body.length * 3 > max && new TextEncoder().encode(body).byteLength > max;
  }
  if (body instanceof Uint8Array || body instanceof ArrayBuffer) return body.byteLength > max;
  return false;
}
