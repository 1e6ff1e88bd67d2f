import { GatewayError, WebhookAuthError, WebhookParseError } from '../../core/errors.js';
import { notifyDecoded } from '../../internal/decoded-deliveries.js';
import { readJsonBody } from '../decode/json-body.js';
import { copyParsed, decodeAs, surfaceOf, type Webhook } from '../decode/parse.js';
import type { BackgroundTasks } from './background-tasks.js';
import type { Claim, Claims } from './claims.js';
import { type Ending, type Hold, keyOf, NO_HOLD, type Processed } from './delivery.js';
import type { DeliveryKeys } from './delivery-key.js';
import { describeWebhook, type WebhookTrace } from './diagnostics.js';
import { type DispatchParts, dispatchNow, startBackground } from './dispatch.js';
import type { ErrorContext } from './events.js';
import type { ResolvedHandlerOptions } from './options.js';
import { answerOf, type KeyAction, OUTCOMES, type Outcome } from './outcomes.js';
import { isProbe } from './probe.js';
import { processInTransaction } from './process-in-transaction.js';
import { type BodyRead, readRequestBody } from './read-request-body.js';
import { asGatewayError, type ReportContext } from './reporting.js';
import { header, type WebhookRequest, type WebhookResponse } from './request.js';
import { type Answer, type Answered, type AnswerParts, answer, responderKind } from './responder.js';
import type { Authentication, Verifier } from './verify.js';

const MISSING_BODY =
  'the delivery had no body: a body parser of the framework read it first and kept nothing the SDK ' +
  'can use. Give the adapter the raw body: createNodeMiddleware for node:http, Express and NestJS, ' +
  'createFastifyPlugin for Fastify, createKoaMiddleware for Koa, createFetchHandler for Fetch-API ' +
  'runtimes (in Hono, give it c.req, which keeps a body a middleware read), and mount it before ' +
  'any middleware that reads the body.';

/** What a delivery that is not a CRM request answers with: no reply, nothing to keep. */
const NO_REPLY: Answer = { answered: { reply: undefined, kept: true } };

/** Keeps the runtime alive for work after the answer (see `HandleOptions.waitUntil`). */
export type WaitUntil = ((promise: Promise<unknown>) => void) | undefined;

/** An authenticated delivery's body, read, and what reports say of it so far. */
interface Admitted {
  body: unknown;
  auth: Authentication;
  context: ReportContext;
}

/** A decoded delivery: the webhook, the value its JSON parsed to, and what reports say of it. */
interface Decoded {
  webhook: Webhook;
  value: unknown;
  context: ReportContext;
}

/** How the handler traces deliveries on the webhook channel (see `traced`). */
export interface DeliveryTracing {
  /** Runs an admitted delivery's processing traced: its trace gets the outcome and status at the end. */
  process(work: (trace?: WebhookTrace) => Promise<WebhookResponse>): Promise<WebhookResponse>;
  /** Publishes a request answered before it was admitted (refused, or the v3 probe): no processing to trace. */
  refused(outcome: Outcome, status: number): void;
}

const untraced: DeliveryTracing = { process: (work) => work(), refused: () => {} };

/** Everything the pipeline's steps use, built once by the handler. */
export interface PipelineParts extends AnswerParts, DispatchParts {
  /** The handler: whose watchers hear each decoded delivery (see `notifyDecoded`). */
  owner: object;
  options: ResolvedHandlerOptions;
  verifier: Verifier;
  keys: DeliveryKeys;
  background: BackgroundTasks;
  claims: Claims | undefined;
}

/**
 * The receive pipeline: verify (URL and headers only) → read (bounded in bytes and time) →
 * decode → claim the idempotency key → answer (a CRM reply) → dispatch → settle the key. Each
 * step returns what it produced, and the next one takes it; each ends by naming a row of the
 * outcome table (`OUTCOMES`), which alone decides the answer and what becomes of the key.
 */
export class Pipeline {
  readonly #parts: PipelineParts;

  constructor(parts: PipelineParts) {
    this.#parts = parts;
  }

  /**
   * Handles one delivery, from its request to its answer. Never throws. The delivery's processing
   * is traced only once it is authenticated and its body read: a request answered before that is
   * published with its outcome and status only.
   */
  async handle(
    request: WebhookRequest,
    waitUntil: WaitUntil,
    tracing: DeliveryTracing = untraced,
  ): Promise<WebhookResponse> {
    const context: ReportContext = {
      request: { method: String(request.method ?? ''), url: String(request.url ?? '') },
    };
    let admitted: Admitted | Ending;
    try {
      admitted = await this.#admit(request, context);
    } catch (error) {
      admitted = this.#unexpected(error, context, 'read');
    }
    if ('outcome' in admitted) {
      const response = answerOf(admitted.outcome, admitted.reply); // no key is held yet
      tracing.refused(admitted.outcome, response.status);
      return response;
    }
    return tracing.process((trace) => this.#process(admitted, waitUntil, trace));
  }

  /** decode → claim → answer → dispatch → settle, and the answer. */
  async #process(admitted: Admitted, waitUntil: WaitUntil, trace?: WebhookTrace): Promise<WebhookResponse> {
    const processed = await this.#run(admitted);
    await this.#settle(processed, waitUntil);
    const { ending, context } = processed;
    const response = answerOf(ending.outcome, ending.reply);
    if (trace) {
      if (context.webhook) describeWebhook(trace, context.webhook);
      trace.outcome = ending.outcome;
      trace.status = response.status;
      trace.after = processed.background ?? processed.lateWork;
    }
    return response;
  }

  /** A step threw: reported, and the delivery ends as `unexpected`. */
  #unexpected(error: unknown, context: ReportContext, stage: ErrorContext['stage']): Ending {
    this.#parts.reporter.report(asGatewayError(error), context, stage);
    return { outcome: 'unexpected' };
  }

  /** verify → read: the body of an authenticated delivery, or how the request was refused. */
  async #admit(request: WebhookRequest, context: ReportContext): Promise<Ending | Admitted> {
    if (String(request.method).toUpperCase() !== 'POST') return { outcome: 'methodNotAllowed' };
    const auth = this.#parts.verifier.verify(request);
    if (!auth) return this.#refuse(request, context);
    const { maxBodyBytes, bodyTimeoutMs } = this.#parts.options;
    if (Number(header(request.headers, 'content-length')) > maxBodyBytes) return { outcome: 'tooLarge' };
    const read = await readRequestBody(request.body, { maxBytes: maxBodyBytes, timeoutMs: bodyTimeoutMs });
    if (read.kind !== 'body') return this.#unread(read, context);
    return { body: read.body, auth, context: { ...context, rawBody: read.body } };
  }

  /**
   * decode → claim → answer → dispatch: each step gives what the next one takes, or how the
   * delivery ended. What the claim step holds is given to the settle step however the rest ends.
   */
  async #run(admitted: Admitted): Promise<Processed> {
    let stage: ErrorContext['stage'] = 'decode'; // the step under way, for an unexpected failure's report
    let context = admitted.context;
    let hold = NO_HOLD;
    try {
      const decoded = this.#decode(admitted);
      if ('outcome' in decoded) return { ending: decoded, hold, context };
      context = decoded.context;
      const deadline = Date.now() + this.#parts.options.replyTimeoutMs; // the answer and the dispatch after it share it
      stage = 'dedupe';
      const claimed = await this.#claim(decoded);
      if ('outcome' in claimed) return { ending: claimed, hold, context };
      hold = claimed;
      stage = 'dispatch';
      return await this.#answerAndDispatch(decoded, hold, deadline);
    } catch (error) {
      return { ending: this.#unexpected(error, context, stage), hold, context };
    }
  }

  /** An unauthenticated request: refused, unless it is the v3 probe (which needs no credentials). */
  async #refuse(request: WebhookRequest, context: ReportContext): Promise<Ending> {
    const { verifier, options } = this.#parts;
    if (verifier.mayBeProbe(request) && (await isProbe(request, options.bodyTimeoutMs)))
      return { outcome: 'probe' };
    return this.#unauthorized(verifier.expected, context);
  }

  /** read: why a body was not read within `maxBodyBytes` and `bodyTimeoutMs`. */
  #unread(read: Exclude<BodyRead, { kind: 'body' }>, context: ReportContext): Ending {
    if (read.kind === 'tooLarge') return { outcome: 'tooLarge' };
    if (read.kind === 'timeout') return { outcome: 'bodyTimeout' };
    if (read.kind === 'gone') return { outcome: 'clientGone' };
    const error = new GatewayError(`Webhook delivery not handled: ${MISSING_BODY}`);
    this.#parts.reporter.report(error, context, 'read');
    return { outcome: 'bodyMissing' };
  }

  /** decode: JSON, then the v2 or v3 delivery; items that do not decode are reported, the rest go on. */
  #decode({ body, auth, context }: Admitted): Ending | Decoded {
    const parsed = readJsonBody(body);
    if (!parsed.ok) return this.#invalid(parsed.error, context);
    const surface = surfaceOf(parsed.value);
    if (auth === 'crmKey' && surface === 'v2') {
      return this.#unauthorized('a v2 delivery needs the secret; the crmKey authenticates v3 only', context);
    }
    // A value a framework's parser made is copied, so listeners never share the caller's objects.
    const value = parsed.raw === parsed.value ? copyParsed(parsed.value) : parsed.value;
    const decoded = decodeAs(value, surface);
    if (!decoded.ok) {
      const issues = new WebhookParseError(decoded.issues, parsed.raw, { omitted: decoded.omitted ?? 0 });
      return this.#invalid(issues, context);
    }
    const { webhook } = decoded;
    const described = { ...context, webhook };
    const { reporter, owner } = this.#parts;
    if (webhook.rejected.length > 0) reporter.rejectedItems(webhook, described);
    notifyDecoded(owner, webhook, (error) => reporter.report(asGatewayError(error), described, 'decode'));
    return { webhook, value: parsed.value, context: described };
  }

  /**
   * claim: the delivery's key (see `DeliveryKeys`), when it has one and dedupe is on: claimed in
   * the store, or left for the store to hold in its own transaction. A claim goes on with the reply
   * an earlier attempt kept, if any: the responder ran already.
   */
  async #claim({ webhook, value, context }: Decoded): Promise<Ending | Hold> {
    const { claims, keys } = this.#parts;
    if (!claims) return NO_HOLD;
    const given = keys.givenKey(webhook);
    const key = given ?? (await keys.derivedKey(webhook, value, context));
    if (key === undefined) return NO_HOLD;
    const derived = given === undefined;
    if (claims.transactional) {
      // Held by the store's transaction, once the background place is reserved.
      return { kind: 'transaction', key, inTransaction: (work) => claims.inTransaction(key, derived, work) };
    }
    const claimed = await claims.claim(key, derived);
    if (claimed.state === 'done') return { outcome: 'duplicate', reply: claimed.reply };
    if (claimed.state === 'processing') return { outcome: 'processing' };
    return { kind: 'claimed', claim: claimed.claim, keptReply: claimed.reply };
  }

  /** answer (unless a reply was kept) → dispatch, in a background place reserved before the responder runs. */
  async #answerAndDispatch({ webhook, context }: Decoded, hold: Hold, deadline: number): Promise<Processed> {
    const parts = this.#parts;
    const slot = parts.mode === 'background' ? parts.background.reserve() : undefined;
    if (parts.mode === 'background' && !slot) return { ending: { outcome: 'busy' }, hold, context };
    try {
      if (hold.kind === 'transaction') {
        const end = await processInTransaction(parts, hold, webhook, context, deadline, slot);
        return { ...end, hold, context };
      }
      const { answered, lateWork } = await this.#answer(webhook, hold, context, deadline);
      if (!answered) return { ending: { outcome: 'replyFailed' }, hold, context, lateWork };
      if (slot) {
        const background = startBackground(parts, webhook, context, slot);
        return { ending: { outcome: 'accepted', reply: answered.reply }, hold, context, background };
      }
      const dispatched = await dispatchNow(parts, webhook, context, deadline, { key: keyOf(hold) });
      const outcome = dispatched.result === 'done' ? 'accepted' : this.#dispatchFailed(answered, hold);
      return { ending: { outcome, reply: answered.reply }, hold, context, lateWork: dispatched.lateWork };
    } finally {
      slot?.cancel(); // nothing once the dispatch started in it
    }
  }

  /**
   * answer: the reply an earlier attempt kept with the claim, or the responder's of a CRM request
   * (kept with the claim), or no reply for any other delivery.
   */
  #answer(webhook: Webhook, hold: Hold, context: ReportContext, deadline: number): Answer | Promise<Answer> {
    if (hold.kind === 'claimed' && hold.keptReply !== undefined) {
      return { answered: { reply: hold.keptReply, kept: true } };
    }
    const claim = hold.kind === 'claimed' ? hold.claim : undefined;
    const kind = responderKind(webhook);
    return kind ? answer(this.#parts, kind, webhook, claim, context, deadline) : NO_REPLY;
  }

  /** The outcome of an 'await' or queue dispatch that failed, by what became of the CRM reply. */
  #dispatchFailed(answered: Answered, hold: Hold): Outcome {
    const hasReply = answered.reply !== undefined;
    if (hasReply && !answered.kept) return 'answeredReplyNotKept';
    const replyKept = hasReply && hold.kind === 'claimed';
    if (this.#parts.mode === 'await') return replyKept ? 'listenerFailedReplyKept' : 'listenerFailed';
    return replyKept ? 'queueFailedReplyKept' : 'queueFailed';
  }

  /**
   * settle: hands the work going on past the answer to `waitUntil`, so a function runtime does not
   * freeze it mid-way, and applies the outcome's rule to a claimed key: at once, or, when work
   * still runs past the answer, once it ends (its end decides). A store that fails here changes no
   * answer: the work is done (or failed) already, and a claim not released ends with its lease.
   */
  #settle(
    { ending, hold, context, lateWork, background }: Processed,
    waitUntil: WaitUntil,
  ): Promise<void> | undefined {
    if (background) this.#handOver(background, waitUntil, context);
    const claim = hold.kind === 'claimed' ? hold.claim : undefined;
    if (!lateWork) return claim && this.#applyKey(claim, OUTCOMES[ending.outcome].key, ending.reply, context);
    const settled = lateWork.then(
      (action) => claim && this.#applyKey(claim, action, ending.reply, context),
      (error: unknown) => this.#parts.reporter.report(asGatewayError(error), context, 'dedupe'),
    );
    this.#handOver(settled, waitUntil, context);
  }

  /** Gives `waitUntil` work that goes on past the answer; a `waitUntil` that throws is reported. */
  #handOver(work: Promise<unknown>, waitUntil: WaitUntil, context: ReportContext): void {
    try {
      waitUntil?.(work);
    } catch (error) {
      this.#parts.reporter.report(asGatewayError(error, 'waitUntil failed'), context, 'dispatch');
    }
  }

  /** Completes or releases the claimed key; a store failure is reported, never thrown. */
  #applyKey(claim: Claim, action: KeyAction, reply: unknown, context: ReportContext): Promise<void> {
    return claim
      .apply(action, reply)
      .catch((error: unknown) => this.#parts.reporter.report(asGatewayError(error), context, 'dedupe'));
  }

  #unauthorized(why: string, context: ReportContext): Ending {
    this.#parts.reporter.report(new WebhookAuthError(`Webhook delivery refused: ${why}`), context, 'auth');
    return { outcome: 'unauthorized' };
  }

  #invalid(error: WebhookParseError, context: ReportContext): Ending {
    this.#parts.reporter.report(error, context, 'decode');
    return { outcome: 'invalid' };
  }
}
