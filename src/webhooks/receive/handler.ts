import { channels, traced } from '../../core/diagnostics.js';
import { GatewayError } from '../../core/errors.js';
import { emitterOf, Listeners } from '../../internal/listeners.js';
import { messageOf } from '../../internal/message-of.js';
import { listenerUrl } from '../../internal/query.js';
import type { Webhook } from '../decode/parse.js';
import { BackgroundTasks } from './background-tasks.js';
import { Claims } from './claims.js';
import { DeliveryKeys } from './delivery-key.js';
import { describeWebhook, type WebhookTrace } from './diagnostics.js';
import { runListeners } from './dispatch.js';
import {
  eventName,
  type ListenerContext,
  type ResponderKind,
  type Responders,
  type WebhookEvents,
} from './events.js';
import { resolveHandlerOptions, type WebhookHandlerOptions } from './options.js';
import { type DeliveryTracing, Pipeline, type PipelineParts } from './pipeline.js';
import { Reporter, registerReporter } from './reporting.js';
import type { WebhookRequest, WebhookResponse } from './request.js';
import { Verifier } from './verify.js';

/** Options of one {@link WebhookHandler.handle} call. */
export interface HandleOptions {
  /**
   * Keeps the runtime alive for work after the answer (background listeners): Cloudflare Workers'
   * `ctx.waitUntil`, Vercel's `waitUntil`. Without it such a runtime may stop them mid-way. It is
   * given the background dispatch of each delivery answered 200 under `dispatch: 'background'`,
   * and the work still running past `replyTimeoutMs` (a responder, 'await' listeners, a queue
   * function) with the settling of its delivery's key.
   */
  waitUntil?: (promise: Promise<unknown>) => void;
}

/**
 * Receives webhook deliveries of API v2 and v3 through one pipeline: verify (URL and headers
 * only) → read (bounded in bytes and time) → decode → claim the idempotency key → answer (a CRM
 * reply) → dispatch → complete or release the key. Every answer comes from one outcome table
 * (`OUTCOMES`), and `handle` never throws: adapters are thin translations of it. Listeners are
 * added with `on`, `once`, removed with `off`, typed by {@link WebhookEvents}.
 * @example
 * ```ts
 * const hooks = new WebhookHandler({ secret: process.env.WEBHOOK_SECRET });
 * hooks.on('message.add', ({ data }) => data.forEach((m) => console.log(m.text)));
 * hooks.on('error', (error, context) => log.error(error, context.rawBody));
 * ```
 */
export class WebhookHandler extends Listeners<WebhookEvents> {
  readonly #parts: PipelineParts;
  readonly #pipeline: Pipeline;
  readonly #responders = new Map<ResponderKind, Responders[ResponderKind]>();

  /**
   * @throws GatewayError when neither `secret` nor `v3AuthToken` is set (unless
   * `allowUnauthenticated`); GatewayValidationError naming the option when a figure is not a
   * positive number (a whole one for bytes, items and `dedupeTtlMs`; a time-out at most
   * 2147483647 ms, what a timer holds).
   */
  constructor(options: WebhookHandlerOptions = {}) {
    const emitter = emitterOf();
    super(emitter);
    const o = resolveHandlerOptions(options);
    const reporter = new Reporter(emitter);
    registerReporter(this, reporter);
    this.#parts = {
      owner: this,
      options: o,
      verifier: new Verifier(o.secret, o.v3AuthToken),
      claims: o.dedupe && new Claims(o.dedupe, o.leaseMs, o.dedupeTtlMs),
      keys: new DeliveryKeys(reporter),
      background: new BackgroundTasks(o.maxPendingDispatches),
      responders: this.#responders,
      emitter,
      reporter,
      mode: o.dispatch,
      replyTimeoutMs: o.replyTimeoutMs,
      leaseMs: o.leaseMs,
    };
    this.#pipeline = new Pipeline(this.#parts);
  }

  /** Largest body accepted (bytes). */
  get maxBodyBytes(): number {
    return this.#parts.options.maxBodyBytes;
  }

  /**
   * Registers the reply to a CRM request (contact_add, deal_add, v3 createContact, createDeal).
   * The reply is checked against the spec's reply schema and sent as the answer, within
   * `replyTimeoutMs`; the responder's `signal` aborts when the reply is no longer wanted. A
   * missing, failing, late or invalid reply is answered 500 and reported. A repeat of a request
   * already answered (by its idempotency key, or for a request without one by its kind and body)
   * gets the same reply without the responder running again.
   */
  respond<K extends ResponderKind>(kind: K, responder: Responders[K]): this {
    this.#responders.set(kind, responder);
    return this;
  }

  /** Resolves when every background listener started so far has finished (tests, shutdown). */
  drain(): Promise<void> {
    return this.#parts.background.drain();
  }

  /**
   * Runs the listeners of a decoded delivery: what a queue worker calls with the webhook that
   * a `dispatch` function queued. Each failure is reported on 'error' too. Listeners get
   * `context` as their second argument: pass the `url` the dispatch function queued beside the
   * webhook when they route by it (a `secret` in it is removed); without it, `url` is empty. A
   * store that runs listeners in a transaction passes it as `tx` (the PostgreSQL inbox's worker).
   * @example
   * ```ts
   * const hooks = new WebhookHandler({ secret, dispatch: (webhook, { url }) => queue.add('webhook', { webhook, url }) });
   * new Worker('webhooks', (job) => hooks.receive(job.data.webhook, { url: job.data.url }), { connection });
   * ```
   * @throws GatewayError (retryable) when a listener failed, so the queue tries the job again
   */
  async receive(webhook: Webhook, context: Partial<ListenerContext> = {}): Promise<void> {
    const url = String(context.url ?? '');
    const report = { request: { method: 'RECEIVE', url }, webhook };
    const given: ListenerContext = { ...context, url: listenerUrl(url) };
    // Thrown inside the trace, so its span is marked as failed, under the outcome row it meets.
    await traced(
      channels.webhook,
      () => describeWebhook({}, webhook),
      async (trace?: WebhookTrace) => {
        const failures = await runListeners(this.#parts, webhook, report, given);
        if (trace) trace.outcome = failures.length === 0 ? 'accepted' : 'listenerFailed';
        if (failures.length > 0) throw listenersFailed(webhook, failures);
      },
    );
  }

  /** Handles one delivery: the framework-free core behind every adapter. Never throws. */
  handle(request: WebhookRequest, options: HandleOptions = {}): Promise<WebhookResponse> {
    return this.#pipeline.handle(request, options.waitUntil, tracing);
  }
}

/**
 * Deliveries on the webhook channel: a delivery's processing traced once it is authenticated and
 * read; a request answered before that published with its outcome and status only (`admitted:
 * false`: no span, no duration, still counted).
 */
const tracing: DeliveryTracing = {
  process: (work) => traced(channels.webhook, (): WebhookTrace => ({}), work),
  refused(outcome, status) {
    if (!channels.webhook?.hasSubscribers) return;
    const trace = (): WebhookTrace => ({ admitted: false, outcome, status });
    void traced(channels.webhook, trace, async () => undefined);
  },
};

/** What `receive` rejects with when listeners failed: retryable, so the queue tries the job again. */
function listenersFailed(webhook: Webhook, failures: unknown[]): GatewayError {
  const what = `${failures.length} listener${failures.length > 1 ? 's' : ''} of ${String(eventName(webhook))}`;
  return new GatewayError(`${what} failed: ${messageOf(failures[0])}`, {
    cause: failures[0],
    retryable: true,
  });
}
