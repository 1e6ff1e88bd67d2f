import { EventEmitter } from 'eventemitter3';
import { GatewayError, WebhookAuthError, WebhookParseError } from '../core/errors.js';
import { readBody } from './body.js';
import type { ClaimResult } from './dedupe.js';
import { type AnyListener, BackgroundTasks, runListeners } from './dispatch.js';
import {
  type ErrorContext,
  eventName,
  type ResponderKind,
  type Responders,
  type WebhookEvents,
} from './events.js';
import { type ResolvedOptions, resolveOptions, type WebhookHandlerOptions } from './handler-options.js';
import { header, maskSecret, type WebhookRequest, type WebhookResponse } from './http.js';
import { answerOf, OUTCOMES, type Outcome } from './outcomes.js';
import { decodeAs, surfaceOf, type Webhook } from './parse.js';
import { readRequestBody } from './read-body.js';
import { responderKind, runResponder } from './respond.js';
import { type Authentication, Verifier } from './verify.js';

/** Options of one {@link WebhookHandler.handle} call. */
export interface HandleOptions {
  /**
   * Keeps the runtime alive for work after the answer (background listeners): Cloudflare Workers'
   * `ctx.waitUntil`, Vercel's `waitUntil`. Without it such a runtime may stop them mid-way.
   */
  waitUntil?: (promise: Promise<unknown>) => void;
}

/** Where a delivery stands as it goes through the pipeline; the error reports read it. */
interface Delivery {
  context: Omit<ErrorContext, 'stage'>;
  waitUntil: HandleOptions['waitUntil'];
  /** The idempotency key this delivery holds a claim on, once it holds one. */
  claimedKey?: string;
}

/** How a delivery ended: a row of the outcome table, and a CRM reply when there is one. */
interface Ending {
  outcome: Outcome;
  reply?: unknown;
}

const MISSING_BODY =
  'the delivery had no body: a body parser of the framework read it first and kept nothing the SDK ' +
  'can use. Give the adapter the raw body: createNodeMiddleware for node:http, Express and NestJS, ' +
  'createFastifyPlugin for Fastify, createKoaMiddleware for Koa, createFetchHandler for Fetch-API ' +
  'runtimes (in Hono, give it c.req, which keeps a body a middleware read), and mount it before ' +
  'any middleware that reads the body.';

/**
 * Receives webhook deliveries of API v2 and v3 through one pipeline: verify (URL and headers
 * only) → read (bounded in bytes and time) → decode → claim the idempotency key → answer (a CRM
 * reply) → dispatch → complete or release the key. Every answer comes from one outcome table,
 * and `handle` never throws: adapters are thin translations of it.
 * @example
 * ```ts
 * const hooks = new WebhookHandler({ secret: process.env.WEBHOOK_SECRET });
 * hooks.on('message.add', ({ data }) => data.forEach((m) => console.log(m.text)));
 * hooks.on('error', (error, context) => log.error(error, context.rawBody));
 * ```
 */
export class WebhookHandler extends EventEmitter<WebhookEvents> {
  readonly #options: ResolvedOptions;
  readonly #verifier: Verifier;
  readonly #responders = new Map<ResponderKind, Responders[ResponderKind]>();
  readonly #background = new BackgroundTasks();

  /**
   * @throws GatewayError when neither `secret` nor `v3AuthToken` is set (unless
   * `allowUnauthenticated`), or a figure is not a positive number.
   */
  constructor(options: WebhookHandlerOptions = {}) {
    super();
    this.#options = resolveOptions(options);
    this.#verifier = new Verifier(this.#options.secret, this.#options.v3AuthToken);
  }

  /** Largest body accepted (bytes). */
  get maxBodyBytes(): number {
    return this.#options.maxBodyBytes;
  }

  /**
   * Registers the reply to a CRM request (contact_add, deal_add, v3 createContact, createDeal).
   * The reply is checked against the spec's reply schema and sent as the answer, within
   * `replyTimeoutMs`; the responder's `signal` aborts when the reply is no longer wanted. A
   * missing, failing, late or invalid reply is answered 500 and reported. A repeat of a request
   * already answered gets the same reply without the responder running again.
   */
  respond<K extends ResponderKind>(kind: K, responder: Responders[K]): this {
    this.#responders.set(kind, responder);
    return this;
  }

  /** Resolves when every background listener started so far has finished (tests, shutdown). */
  drain(): Promise<void> {
    return this.#background.drain();
  }

  /**
   * Runs the listeners of a decoded delivery: what a queue worker calls with the webhook that
   * a `dispatch` function queued. Each failure is reported on 'error' too.
   * @throws GatewayError (retryable) when a listener failed, so the queue tries the job again
   */
  async receive(webhook: Webhook): Promise<void> {
    const failures = await this.#dispatch(webhook, { request: { method: 'RECEIVE', url: '' }, webhook });
    if (failures.length > 0) {
      const what = `${failures.length} listener${failures.length > 1 ? 's' : ''} of ${String(eventName(webhook))}`;
      throw new GatewayError(`${what} failed: ${messageOf(failures[0])}`, {
        cause: failures[0],
        retryable: true,
      });
    }
  }

  /** Handles one delivery: the framework-free core behind every adapter. Never throws. */
  async handle(request: WebhookRequest, options: HandleOptions = {}): Promise<WebhookResponse> {
    const delivery: Delivery = {
      context: { request: { method: request.method, url: request.url } },
      waitUntil: options.waitUntil,
    };
    let ending: Ending;
    try {
      ending = await this.#run(request, delivery);
    } catch (error) {
      this.#report(asGatewayError(error), delivery, 'read');
      ending = { outcome: 'unexpected' };
    }
    return this.#settle(ending, delivery);
  }

  /** Applies the outcome's rule to the claimed key, then builds the answer. */
  async #settle(ending: Ending, delivery: Delivery): Promise<WebhookResponse> {
    const key = delivery.claimedKey;
    const store = this.#options.dedupe;
    const action = OUTCOMES[ending.outcome].key;
    if (key === undefined || !store) return answerOf(ending.outcome, ending.reply);
    try {
      if (action === 'done') await store.complete(key, this.#options.dedupeTtlMs, ending.reply);
      else if (action === 'released') await store.release(key);
      return answerOf(ending.outcome, ending.reply);
    } catch (error) {
      this.#report(asGatewayError(error), delivery, 'dedupe');
      if (action === 'done') await Promise.resolve(store.release(key)).catch(() => {});
      return answerOf('unexpected');
    }
  }

  /** verify → read → decode, then process. */
  async #run(request: WebhookRequest, delivery: Delivery): Promise<Ending> {
    if (request.method.toUpperCase() !== 'POST') return { outcome: 'methodNotAllowed' };
    const auth = this.#verifier.verify(request);
    if (!auth) return this.#unauthorized(this.#verifier.expected, delivery);
    if (Number(header(request.headers, 'content-length')) > this.#options.maxBodyBytes) {
      return { outcome: 'tooLarge' };
    }
    const read = await readRequestBody(request.body, {
      maxBytes: this.#options.maxBodyBytes,
      timeoutMs: this.#options.bodyTimeoutMs,
    });
    if (read.kind === 'tooLarge') return { outcome: 'tooLarge' };
    if (read.kind === 'timeout') return { outcome: 'bodyTimeout' };
    if (read.kind === 'gone') return { outcome: 'clientGone' };
    if (read.kind === 'missing') {
      this.#report(new GatewayError(`Webhook delivery not handled: ${MISSING_BODY}`), delivery, 'read');
      return { outcome: 'bodyMissing' };
    }
    delivery.context.rawBody = read.body;
    return this.#decode(read.body, auth, delivery);
  }

  async #decode(body: unknown, auth: Authentication, delivery: Delivery): Promise<Ending> {
    const parsed = readBody(body);
    if (!parsed.ok) return this.#invalid(parsed.error, delivery);
    const surface = surfaceOf(parsed.value);
    if (auth === 'crmKey' && surface === 'v2') {
      return this.#unauthorized('a v2 delivery needs the secret; the crmKey authenticates v3 only', delivery);
    }
    const decoded = decodeAs(parsed.value, surface);
    if (!decoded.ok) return this.#invalid(new WebhookParseError(decoded.issues, parsed.raw), delivery);
    delivery.context.webhook = decoded.webhook;
    return this.#process(decoded.webhook, delivery);
  }

  /** claim → answer → dispatch. */
  async #process(webhook: Webhook, delivery: Delivery): Promise<Ending> {
    const key = webhook.api === 'v2' ? webhook.meta.idempotency_key : undefined;
    const store = this.#options.dedupe;
    if (key !== undefined && store) {
      let claim: ClaimResult;
      try {
        claim = await store.claim(key, this.#options.leaseMs);
      } catch (error) {
        this.#report(asGatewayError(error, 'The dedupe store failed'), delivery, 'dedupe');
        return { outcome: 'unexpected' };
      }
      if (claim.state === 'done') return { outcome: 'duplicate', reply: claim.reply };
      if (claim.state === 'processing') return { outcome: 'processing' };
      delivery.claimedKey = key;
    }
    const mode = this.#options.dispatch;
    if (mode === 'background' && this.#background.size >= this.#options.maxPendingDispatches) {
      return { outcome: 'busy' };
    }
    const kind = responderKind(webhook);
    let reply: unknown;
    if (kind) {
      try {
        reply = await runResponder(kind, this.#responders.get(kind), webhook, this.#options.replyTimeoutMs);
      } catch (error) {
        this.#report(asGatewayError(error), delivery, 'respond');
        return { outcome: 'replyFailed' };
      }
    }
    if (mode === 'background') {
      const task = this.#background.start(() => this.#dispatch(webhook, delivery.context).then(() => {}));
      delivery.waitUntil?.(task);
    } else if (mode === 'await') {
      if ((await this.#dispatch(webhook, delivery.context)).length > 0) return { outcome: 'listenerFailed' };
    } else {
      try {
        await mode(webhook);
      } catch (error) {
        this.#report(asGatewayError(error, 'The dispatch function failed'), delivery, 'dispatch');
        return { outcome: 'queueFailed' };
      }
    }
    return { outcome: 'accepted', reply };
  }

  /** Runs the listeners of the delivery's kind and of 'webhook'; reports each failure. */
  async #dispatch(webhook: Webhook, context: Delivery['context']): Promise<unknown[]> {
    const name = eventName(webhook);
    const own = this.listeners(name) as AnyListener[];
    const listeners = this.listenerCount('webhook')
      ? [...own, ...(this.listeners('webhook') as AnyListener[])]
      : own;
    const failures = await runListeners(listeners, webhook);
    for (const failure of failures) {
      const error = new GatewayError(`A listener of ${String(name)} failed: ${messageOf(failure)}`, {
        cause: failure,
      });
      this.#report(error, { context }, 'listener');
    }
    return failures;
  }

  #unauthorized(why: string, delivery: Delivery): Ending {
    this.#report(new WebhookAuthError(`Webhook delivery refused: ${why}`), delivery, 'auth');
    return { outcome: 'unauthorized' };
  }

  #invalid(error: WebhookParseError, delivery: Delivery): Ending {
    this.#report(error, delivery, 'decode');
    return { outcome: 'invalid' };
  }

  /** Reports on 'error'; with no 'error' listener, on the console, so nothing is silently lost. */
  #report(error: GatewayError, { context }: Pick<Delivery, 'context'>, stage: ErrorContext['stage']): void {
    // The secret is masked here, on the error path only, not on every delivery.
    const request = { ...context.request, url: maskSecret(context.request.url) };
    if (this.listenerCount('error') === 0) {
      console.error(`[messaging-gateway-sdk] ${stage}: ${error.message}`);
      return;
    }
    try {
      this.emit('error', error, { ...context, request, stage });
    } catch {
      // An 'error' listener that throws must not turn a delivery into a crash.
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function asGatewayError(error: unknown, prefix?: string): GatewayError {
  if (error instanceof GatewayError && prefix === undefined) return error;
  const message = prefix ? `${prefix}: ${messageOf(error)}` : messageOf(error);
  return new GatewayError(message, { cause: error });
}
