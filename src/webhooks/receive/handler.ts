import { EventEmitter } from 'eventemitter3';
import { channels, traced } from '../../core/diagnostics.js';
import { GatewayError, WebhookAuthError, WebhookParseError } from '../../core/errors.js';
import { ConsoleReporter } from '../../internal/console-reporter.js';
import { LATE, within } from '../../internal/deadline.js';
import { messageOf } from '../../internal/message-of.js';
import { settleListeners } from '../../internal/settle-listeners.js';
import { type ChannelCalls, ChannelConnection } from '../../resources/channel-connect/connection.js';
import { CONNECT } from '../../resources/channel-connect/key.js';
import type { ConnectOptions } from '../../resources/channel-connect/steps.js';
import type { CreateChannelParams } from '../../schemas/channels.js';
import { readJsonBody } from '../decode/json-body.js';
import { copyParsed, decodeAs, surfaceOf, type Webhook } from '../decode/parse.js';
import { BackgroundTasks, type Slot } from './background-tasks.js';
import { type Claim, Claims } from './claims.js';
import type { ClaimResult } from './dedupe-store.js';
import { describeWebhook, type WebhookTrace } from './diagnostics.js';
import {
  type ErrorContext,
  eventName,
  type ResponderKind,
  type Responders,
  type WebhookEvents,
} from './events.js';
import { type ResolvedHandlerOptions, resolveHandlerOptions, type WebhookHandlerOptions } from './options.js';
import { answerOf, type KeyAction, OUTCOMES, type Outcome } from './outcomes.js';
import { readRequestBody } from './read-request-body.js';
import { header, maskSecret, type WebhookRequest, type WebhookResponse } from './request.js';
import { type ResponderRun, responderKind, runResponder } from './responder.js';
import { type Authentication, Verifier } from './verify.js';

/** Options of one {@link WebhookHandler.handle} call. */
export interface HandleOptions {
  /**
   * Keeps the runtime alive for work after the answer (background listeners): Cloudflare Workers'
   * `ctx.waitUntil`, Vercel's `waitUntil`. Without it such a runtime may stop them mid-way. It is
   * called only when a listener returned a promise: synchronous listeners have finished by the
   * answer.
   */
  waitUntil?: (promise: Promise<unknown>) => void;
}

/** Where a delivery stands as it goes through the pipeline; the error reports read it. */
interface Delivery {
  context: Omit<ErrorContext, 'stage'>;
  waitUntil: HandleOptions['waitUntil'];
  /** The key this delivery holds a claim on, once it holds one. */
  claim?: Claim;
  /** The step under way: what an unexpected failure is reported as. */
  stage: ErrorContext['stage'];
  /** Work still running past its answer (a late responder, 'await', a queue function): its end decides the key. */
  lateWork?: Promise<KeyAction>;
}

/** How a delivery ended: a row of the outcome table, and a CRM reply when there is one. */
interface Ending {
  outcome: Outcome;
  reply?: unknown;
}

/** Bytes of an unauthenticated request read to tell the v3 `{ test: true }` probe (it is 14). */
const PROBE_BYTES = 64;
/** Time an unauthenticated request is given to send those bytes. */
const PROBE_TIMEOUT_MS = 2_000;

/** Delivery kinds whose missing idempotency key is reported (once each). */
const MAX_UNKEYED_KINDS = 100;

/** A late responder that failed in the end. */
const LATE_FAILED: unique symbol = Symbol('late-failed');

/** Rejected items reported one by one; past it, one report counts the rest. */
const MAX_REPORTED_ITEMS = 100;

const MISSING_BODY =
  'the delivery had no body: a body parser of the framework read it first and kept nothing the SDK ' +
  'can use. Give the adapter the raw body: createNodeMiddleware for node:http, Express and NestJS, ' +
  'createFastifyPlugin for Fastify, createKoaMiddleware for Koa, createFetchHandler for Fetch-API ' +
  'runtimes (in Hono, give it c.req, which keeps a body a middleware read), and mount it before ' +
  'any middleware that reads the body.';

/**
 * Receives webhook deliveries of API v2 and v3 through one pipeline: verify (URL and headers
 * only) → read (bounded in bytes and time) → decode → claim the idempotency key → answer (a CRM
 * reply) → dispatch → complete or release the key. Every answer comes from one outcome table
 * (`OUTCOMES`), and `handle` never throws: adapters are thin translations of it.
 * @example
 * ```ts
 * const hooks = new WebhookHandler({ secret: process.env.WEBHOOK_SECRET });
 * hooks.on('message.add', ({ data }) => data.forEach((m) => console.log(m.text)));
 * hooks.on('error', (error, context) => log.error(error, context.rawBody));
 * ```
 */
export class WebhookHandler extends EventEmitter<WebhookEvents> {
  readonly #options: ResolvedHandlerOptions;
  readonly #verifier: Verifier;
  readonly #claims: Claims | undefined;
  readonly #responders = new Map<ResponderKind, Responders[ResponderKind]>();
  readonly #background: BackgroundTasks;
  readonly #unkeyed = new Set<string>();
  readonly #console = new ConsoleReporter();

  /**
   * @throws GatewayError when neither `secret` nor `v3AuthToken` is set (unless
   * `allowUnauthenticated`), or a figure is not a positive number.
   */
  constructor(options: WebhookHandlerOptions = {}) {
    super();
    const o = resolveHandlerOptions(options);
    this.#options = o;
    this.#verifier = new Verifier(o.secret, o.v3AuthToken);
    this.#claims = o.dedupe && new Claims(o.dedupe, o.leaseMs, o.dedupeTtlMs);
    this.#background = new BackgroundTasks(o.maxPendingDispatches);
  }

  /**
   * Starts a `client.channels.connect` flow that hears this handler's deliveries (the flow's code
   * ships with the handler, not with a client that only sends).
   * @internal
   */
  [CONNECT](calls: ChannelCalls, params: CreateChannelParams, options: ConnectOptions): ChannelConnection {
    return new ChannelConnection(calls, params, options);
  }

  /** Largest body accepted (bytes). */
  get maxBodyBytes(): number {
    return this.#options.maxBodyBytes;
  }

  /**
   * Registers the reply to a CRM request (contact_add, deal_add, v3 createContact, createDeal).
   * The reply is checked against the spec's reply schema and sent as the answer, within
   * `replyTimeoutMs`; the responder's `signal` aborts when the reply is no longer wanted. A
   * missing, failing, late or invalid reply is answered 500 and reported. A repeat of a v2
   * request already answered gets the same reply without the responder running again.
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
    const context = { request: { method: 'RECEIVE', url: '' }, webhook };
    const failures = await traced(
      channels.webhook,
      () => describeWebhook({}, webhook),
      async () => this.#dispatch(webhook, context),
    );
    if (failures.length > 0) {
      const what = `${failures.length} listener${failures.length > 1 ? 's' : ''} of ${String(eventName(webhook))}`;
      throw new GatewayError(`${what} failed: ${messageOf(failures[0])}`, {
        cause: failures[0],
        retryable: true,
      });
    }
  }

  /** Handles one delivery: the framework-free core behind every adapter. Never throws. */
  handle(request: WebhookRequest, options: HandleOptions = {}): Promise<WebhookResponse> {
    return traced(
      channels.webhook,
      () => ({}),
      (trace: WebhookTrace | undefined) => this.#handle(request, options, trace),
    );
  }

  async #handle(request: WebhookRequest, options: HandleOptions, trace?: WebhookTrace) {
    const delivery: Delivery = {
      context: { request: { method: String(request.method ?? ''), url: String(request.url ?? '') } },
      waitUntil: options.waitUntil,
      stage: 'read',
    };
    let ending: Ending;
    try {
      ending = await this.#run(request, delivery);
    } catch (error) {
      this.#report(asGatewayError(error), delivery, delivery.stage);
      ending = { outcome: 'unexpected' };
    }
    const settled = this.#settle(ending, delivery);
    if (settled) await settled;
    const answer = answerOf(ending.outcome, ending.reply);
    if (trace) {
      if (delivery.context.webhook) describeWebhook(trace, delivery.context.webhook);
      trace.outcome = ending.outcome;
      trace.status = answer.status;
    }
    return answer;
  }

  /**
   * Applies the outcome's rule to the claimed key. A store that fails here changes no answer:
   * the work is done (or failed) already, and a claim not released ends with its lease.
   */
  #settle(ending: Ending, delivery: Delivery): void | Promise<void> {
    const { claim, lateWork } = delivery;
    if (!claim) return;
    if (lateWork) {
      // Answered already; the key waits for the work: done if it succeeds, released if not.
      void lateWork.then(
        (action) => this.#applyKey(claim, action, ending.reply, delivery),
        (error: unknown) => this.#report(asGatewayError(error), delivery, 'dedupe'),
      );
      return;
    }
    return this.#applyKey(claim, OUTCOMES[ending.outcome].key, ending.reply, delivery);
  }

  /** Applies a key action; a store failure is reported, never thrown. At once for a store in memory. */
  #applyKey(claim: Claim, action: KeyAction, reply: unknown, delivery: Delivery): void | Promise<void> {
    try {
      // A store in memory may give back anything (`map.set` gives the map): only a promise is waited for.
      const applied: unknown = (this.#claims as Claims).apply(claim, action, reply);
      if (applied instanceof Promise) {
        return applied.catch((error: unknown) => this.#report(asGatewayError(error), delivery, 'dedupe'));
      }
    } catch (error) {
      this.#report(asGatewayError(error), delivery, 'dedupe');
    }
  }

  /** verify → read → decode, then process. */
  async #run(request: WebhookRequest, delivery: Delivery): Promise<Ending> {
    if (String(request.method).toUpperCase() !== 'POST') return { outcome: 'methodNotAllowed' };
    const auth = this.#verifier.verify(request);
    if (!auth && this.#verifier.mayBeProbe(request) && (await this.#isProbe(request)))
      return { outcome: 'probe' };
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
    delivery.stage = 'decode';
    return this.#decode(read.body, auth, delivery);
  }

  /**
   * Whether an unauthenticated request is the v3 `{ test: true }` probe: at most its first
   * {@link PROBE_BYTES} bytes are read, so a sender without credentials still costs next to nothing.
   */
  async #isProbe(request: WebhookRequest): Promise<boolean> {
    if (Number(header(request.headers, 'content-length')) > PROBE_BYTES) return false;
    const read = await readRequestBody(request.body, {
      maxBytes: PROBE_BYTES,
      timeoutMs: Math.min(this.#options.bodyTimeoutMs, PROBE_TIMEOUT_MS),
    });
    if (read.kind !== 'body') return false;
    const parsed = readJsonBody(read.body);
    if (!parsed.ok) return false;
    const value = parsed.value as Record<string, unknown> | null;
    return (
      typeof value === 'object' && value !== null && value.test === true && Object.keys(value).length === 1
    );
  }

  #decode(body: unknown, auth: Authentication, delivery: Delivery): Ending | Promise<Ending> {
    const parsed = readJsonBody(body);
    if (!parsed.ok) return this.#invalid(parsed.error, delivery);
    const surface = surfaceOf(parsed.value);
    if (auth === 'crmKey' && surface === 'v2') {
      return this.#unauthorized('a v2 delivery needs the secret; the crmKey authenticates v3 only', delivery);
    }
    // A value a framework's parser made is copied, so listeners never share the caller's objects.
    const value = parsed.raw === parsed.value ? copyParsed(parsed.value) : parsed.value;
    const decoded = decodeAs(value, surface);
    if (!decoded.ok) {
      const error = new WebhookParseError(decoded.issues, parsed.raw, { omitted: decoded.omitted ?? 0 });
      return this.#invalid(error, delivery);
    }
    delivery.context.webhook = decoded.webhook;
    this.#reportRejected(decoded.webhook, delivery);
    return this.#process(decoded.webhook, delivery);
  }

  /**
   * The good items go on; each rejected one is reported with its raw value (the first
   * {@link MAX_REPORTED_ITEMS}, then one report counting the rest), so nothing is lost silently.
   */
  #reportRejected(webhook: Webhook, delivery: Delivery): void {
    const { rejected } = webhook;
    if (rejected.length === 0) return;
    for (const item of rejected.slice(0, MAX_REPORTED_ITEMS)) {
      const issues = item.issues.length
        ? item.issues
        : [{ path: [item.list, item.index], message: 'rejected' }];
      this.#report(new WebhookParseError(issues, item.raw), delivery, 'decode');
    }
    if (rejected.length > MAX_REPORTED_ITEMS) {
      const rest = rejected.length - MAX_REPORTED_ITEMS;
      const issue = { path: [], message: `${rest} more rejected items; the raw body holds them` };
      this.#report(new WebhookParseError([issue], delivery.context.rawBody), delivery, 'decode');
    }
  }

  /**
   * claim → answer → dispatch, all within one deadline (`replyTimeoutMs`): the responder and,
   * under 'await' or a queue function, the dispatch after it share it. Each step goes on in the
   * same turn when the one before it finished at once (a store in memory, a background
   * dispatch): a promise is made only where something is awaited.
   */
  #process(webhook: Webhook, delivery: Delivery): Ending | Promise<Ending> {
    const deadline = Date.now() + this.#options.replyTimeoutMs;
    const key = this.#keyOf(webhook, delivery);
    if (key === undefined || !this.#claims) return this.#proceed(webhook, delivery, deadline, undefined);
    delivery.stage = 'dedupe';
    const claim = this.#claims.claim(key);
    if (claim instanceof Promise) {
      return claim.then((result) => this.#claimed(result, key, webhook, delivery, deadline));
    }
    return this.#claimed(claim, key, webhook, delivery, deadline);
  }

  /** Goes on as the store's answer says: a duplicate, a key held elsewhere, or a claim of our own. */
  #claimed(
    result: ClaimResult,
    key: string,
    webhook: Webhook,
    delivery: Delivery,
    deadline: number,
  ): Ending | Promise<Ending> {
    if (result.state === 'done') return { outcome: 'duplicate', reply: result.reply };
    if (result.state === 'processing') return { outcome: 'processing' };
    delivery.claim = { key, token: result.token };
    // A reply kept by an earlier attempt: the responder ran already.
    const kept = result.reply !== undefined ? { reply: result.reply } : undefined;
    return this.#proceed(webhook, delivery, deadline, kept);
  }

  /** answer (unless a reply was kept) → dispatch, in a background place reserved first. */
  #proceed(
    webhook: Webhook,
    delivery: Delivery,
    deadline: number,
    kept: { reply: unknown } | undefined,
  ): Ending | Promise<Ending> {
    const background = this.#options.dispatch === 'background';
    const slot = background ? this.#background.reserve() : undefined;
    if (background && !slot) return { outcome: 'busy' };
    const kind = responderKind(webhook);
    if (!kind || kept) return this.#dispatchWith(webhook, delivery, deadline, slot, kept?.reply);
    return this.#answer(kind, webhook, delivery, deadline)
      .then((answered): Ending | Promise<Ending> => {
        if (!answered) return { outcome: 'replyFailed' };
        return this.#dispatchWith(webhook, delivery, deadline, slot, answered.reply);
      })
      .finally(() => slot?.cancel()); // a no-op once the dispatch started in it
  }

  /** Dispatches the delivery (in its background place, or now) and ends with the CRM reply, if any. */
  #dispatchWith(
    webhook: Webhook,
    delivery: Delivery,
    deadline: number,
    slot: Slot | undefined,
    reply: unknown,
  ): Ending | Promise<Ending> {
    delivery.stage = 'dispatch';
    if (slot) return { outcome: this.#startBackground(webhook, delivery, slot), reply };
    return this.#dispatchNow(webhook, delivery, deadline).then((outcome) => ({ outcome, reply }));
  }

  /**
   * The idempotency key of a v2 delivery; an empty or blank one counts as none. Without a key a
   * delivery is processed without dedupe, and 'error' says so once per delivery kind.
   */
  #keyOf(webhook: Webhook, delivery: Delivery): string | undefined {
    if (webhook.api !== 'v2') return undefined;
    const key = webhook.meta.idempotency_key;
    if (key !== undefined && key !== null && String(key).trim() !== '') return String(key);
    const kind = String(webhook.event);
    if (this.#claims && this.#unkeyed.size < MAX_UNKEYED_KINDS && !this.#unkeyed.has(kind)) {
      this.#unkeyed.add(kind);
      const why = `a ${kind} delivery came without meta.idempotency_key: such deliveries are processed without dedupe`;
      this.#report(new GatewayError(why), delivery, 'dedupe');
    }
    return undefined;
  }

  /**
   * Runs the responder within the deadline and keeps its reply with the key before anything else
   * runs, so a failed dispatch never makes the responder run twice. Undefined when it failed.
   */
  async #answer(
    kind: ResponderKind,
    webhook: Webhook,
    delivery: Delivery,
    deadline: number,
  ): Promise<{ reply: unknown } | undefined> {
    delivery.stage = 'respond';
    let run: ResponderRun;
    try {
      run = await runResponder(kind, this.#responders.get(kind), webhook, Math.max(0, deadline - Date.now()));
    } catch (error) {
      this.#report(asGatewayError(error), delivery, 'respond');
      return undefined;
    }
    if (run.late) {
      const why = `The ${kind} responder did not reply within replyTimeoutMs (${this.#options.replyTimeoutMs} ms)`;
      this.#report(new GatewayError(`${why}; its key is held until it ends`), delivery, 'respond');
      delivery.lateWork = this.#keepLateReply(run.late, delivery);
      return undefined;
    }
    if (delivery.claim && this.#claims) {
      delivery.stage = 'dedupe';
      // A store that fails here changes no answer: the reply still reaches the service.
      try {
        await this.#claims.keepReply(delivery.claim, run.reply);
      } catch (error) {
        this.#report(asGatewayError(error), delivery, 'dedupe');
      }
    }
    return { reply: run.reply };
  }

  /**
   * A late responder: the key stays held until it really ends (at most the lease, after which the
   * store frees it); a reply it still returns is kept, so the service's retry gets that reply.
   */
  async #keepLateReply(late: Promise<unknown>, delivery: Delivery): Promise<KeyAction> {
    const ended = await within(late, this.#options.leaseMs).catch((error: unknown) => {
      this.#report(asGatewayError(error), delivery, 'respond');
      return LATE_FAILED;
    });
    if (ended === LATE) return 'none';
    if (ended !== LATE_FAILED && delivery.claim && this.#claims) {
      await this.#claims.keepReply(delivery.claim, ended);
    }
    return 'released';
  }

  /** 'background': listeners run after the answer, handed to `waitUntil` when there is one. */
  #startBackground(webhook: Webhook, delivery: Delivery, slot: Slot): Outcome {
    const task = slot.start(() => this.#dispatch(webhook, delivery.context));
    if (!task) return 'accepted'; // every listener returned at once: nothing runs on
    try {
      delivery.waitUntil?.(task);
    } catch (error) {
      this.#report(asGatewayError(error, 'waitUntil failed'), delivery, 'dispatch');
    }
    return 'accepted';
  }

  /**
   * 'await' or a queue function: the answer waits for the work, up to `replyTimeoutMs` (under the
   * service's own 30 s). Work still running then is answered as failed, and the key waits for its
   * end, so a retry neither runs beside it nor loses it.
   */
  async #dispatchNow(webhook: Webhook, delivery: Delivery, deadline: number): Promise<Outcome> {
    const mode = this.#options.dispatch;
    const failed: Outcome = mode === 'await' ? 'listenerFailed' : 'queueFailed';
    const work: Promise<boolean> =
      typeof mode === 'function'
        ? Promise.resolve()
            .then(() => mode(webhook))
            .then(
              () => true,
              (error: unknown) => {
                this.#report(asGatewayError(error, 'The dispatch function failed'), delivery, 'dispatch');
                return false;
              },
            )
        : Promise.resolve(this.#dispatch(webhook, delivery.context)).then(
            (failures) => failures.length === 0,
          );
    const done = await within(work, Math.max(0, deadline - Date.now()));
    if (done === LATE) {
      const what = mode === 'await' ? 'The listeners' : 'The dispatch function';
      const late = `${what} did not finish within replyTimeoutMs (${this.#options.replyTimeoutMs} ms, the whole answer)`;
      this.#report(new GatewayError(late), delivery, mode === 'await' ? 'listener' : 'dispatch');
      delivery.lateWork = work.then((ok) => (ok ? 'done' : 'released'));
      return failed;
    }
    return done ? 'accepted' : failed;
  }

  /**
   * Runs the listeners of the delivery's kind (of each kind, for a v3 body of several) and of
   * 'webhook' (once, with the whole delivery); reports each failure. The failures come at once
   * when every listener returned at once, otherwise as a promise.
   */
  #dispatch(
    webhook: Webhook,
    context: Delivery['context'],
  ): readonly unknown[] | Promise<readonly unknown[]> {
    const runs = [settleListeners(this, eventName(webhook), webhook)];
    if (webhook.api === 'v3' && webhook.also) {
      for (const part of webhook.also) runs.push(settleListeners(this, eventName(part), part));
    }
    if (this.listenerCount('webhook')) runs.push(settleListeners(this, 'webhook', webhook));
    const [first] = runs;
    if (runs.length === 1 && !(first instanceof Promise)) {
      return first?.length ? this.#reportListeners(first, webhook, context) : (first ?? []);
    }
    // A 'webhook' listener, or the kinds of a v3 body: still at once when no listener made a promise.
    if (!runs.some((run) => run instanceof Promise)) {
      return this.#reportListeners((runs as (readonly unknown[])[]).flat(), webhook, context);
    }
    return Promise.all(runs).then((all) => this.#reportListeners(all.flat(), webhook, context));
  }

  /** Reports each listener's failure; gives them back. */
  #reportListeners(
    failures: readonly unknown[],
    webhook: Webhook,
    context: Delivery['context'],
  ): readonly unknown[] {
    for (const failure of failures) {
      const what = webhook.api === 'v3' && webhook.also ? 'a v3 delivery' : String(eventName(webhook));
      const error = new GatewayError(`A listener of ${what} failed: ${messageOf(failure)}`, {
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

  /**
   * Reports on 'error'; with no 'error' listener, on the console (bounded: see ConsoleReporter),
   * so nothing is silently lost. An 'error' listener that throws or rejects never turns a
   * delivery into a crash.
   */
  #report(error: GatewayError, { context }: Pick<Delivery, 'context'>, stage: ErrorContext['stage']): void {
    // The secret is masked here, on the error path only, not on every delivery.
    const request = { ...context.request, url: maskSecret(context.request.url) };
    if (this.listenerCount('error') === 0) {
      this.#console.report(`[messaging-gateway-sdk] ${stage}: ${error.message}`);
      return;
    }
    void settleListeners(this, 'error', error, { ...context, request, stage });
  }
}

function asGatewayError(error: unknown, prefix?: string): GatewayError {
  if (error instanceof GatewayError && prefix === undefined) return error;
  const message = prefix ? `${prefix}: ${messageOf(error)}` : messageOf(error);
  return new GatewayError(message, { cause: error });
}
