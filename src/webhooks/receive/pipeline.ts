import { GatewayError, WebhookAuthError, WebhookParseError } from '../../core/errors.js';
import { notifyDecoded } from '../../internal/decoded-deliveries.js';
import { readJsonBody } from '../decode/json-body.js';
import { copyParsed, decodeAs, surfaceOf, type Webhook } from '../decode/parse.js';
import type { BackgroundTasks } from './background-tasks.js';
import type { Claim, Claims } from './claims.js';
import type { Delivery, Ending } from './delivery.js';
import type { DeliveryKeys } from './delivery-key.js';
import { describeWebhook, type WebhookTrace } from './diagnostics.js';
import { type DispatchParts, dispatchNow, startBackground } from './dispatch.js';
import type { ResolvedHandlerOptions } from './options.js';
import { answerOf, type KeyAction, OUTCOMES, type Outcome } from './outcomes.js';
import { isProbe } from './probe.js';
import { processInTransaction } from './process-in-transaction.js';
import { type BodyRead, readRequestBody } from './read-request-body.js';
import { asGatewayError } from './reporting.js';
import { header, type WebhookRequest, type WebhookResponse } from './request.js';
import { type Answered, type AnswerParts, answer, responderKind } from './responder.js';
import type { Authentication, Verifier } from './verify.js';

const MISSING_BODY =
  'the delivery had no body: a body parser of the framework read it first and kept nothing the SDK ' +
  'can use. Give the adapter the raw body: createNodeMiddleware for node:http, Express and NestJS, ' +
  'createFastifyPlugin for Fastify, createKoaMiddleware for Koa, createFetchHandler for Fetch-API ' +
  'runtimes (in Hono, give it c.req, which keeps a body a middleware read), and mount it before ' +
  'any middleware that reads the body.';

/** What a delivery that is not a CRM request answers with: no reply, nothing to keep. */
const NO_REPLY: Answered = { reply: undefined, kept: true };

/** An authenticated delivery's body, read. */
interface Admitted {
  body: unknown;
  auth: Authentication;
}

/** Runs a delivery's processing traced (see `traced`), or as it is. */
export type TraceDelivery = (
  work: (trace?: WebhookTrace) => Promise<WebhookResponse>,
) => Promise<WebhookResponse>;
const untraced: TraceDelivery = (work) => work();

/** Everything the pipeline's steps use, built once by the handler. */
export interface PipelineParts extends AnswerParts, DispatchParts {
  /** The handler: whose watchers hear each decoded delivery (see `notifyDecoded`). */
  owner: object;
  options: ResolvedHandlerOptions;
  verifier: Verifier;
  keys: DeliveryKeys;
  background: BackgroundTasks;
}

/**
 * The receive pipeline: verify (URL and headers only) → read (bounded in bytes and time) →
 * decode → claim the idempotency key → answer (a CRM reply) → dispatch → settle the key. Each
 * step ends by naming a row of the outcome table (`OUTCOMES`), which alone decides the answer and
 * what becomes of the key.
 */
export class Pipeline {
  readonly #parts: PipelineParts;

  constructor(parts: PipelineParts) {
    this.#parts = parts;
  }

  /**
   * Handles one delivery, from its request to its answer. Never throws. The delivery is traced
   * (`trace`) only once it is authenticated and its body read: a refused request is not a delivery.
   */
  async handle(
    request: WebhookRequest,
    waitUntil: Delivery['waitUntil'],
    trace: TraceDelivery = untraced,
  ): Promise<WebhookResponse> {
    const method = String(request.method ?? '');
    const delivery: Delivery = {
      context: { request: { method, url: String(request.url ?? '') } },
      waitUntil,
      stage: 'read',
    };
    let admitted: Admitted | Ending;
    try {
      admitted = await this.#admit(request, delivery);
    } catch (error) {
      admitted = this.#unexpected(error, delivery);
    }
    if ('outcome' in admitted) return answerOf(admitted.outcome, admitted.reply); // no key is held yet
    return trace((t) => this.#process(admitted, delivery, t));
  }

  /** decode → claim → answer → dispatch → settle, and the answer. */
  async #process(admitted: Admitted, delivery: Delivery, trace?: WebhookTrace): Promise<WebhookResponse> {
    let ending: Ending;
    try {
      ending = await this.#run(admitted, delivery);
    } catch (error) {
      ending = this.#unexpected(error, delivery);
    }
    await this.#settle(ending, delivery);
    const response = answerOf(ending.outcome, ending.reply);
    if (trace) {
      if (delivery.context.webhook) describeWebhook(trace, delivery.context.webhook);
      trace.outcome = ending.outcome;
      trace.status = response.status;
      trace.after = delivery.background ?? delivery.lateWork;
    }
    return response;
  }

  /** A step threw: reported, and the delivery ends as `unexpected`. */
  #unexpected(error: unknown, delivery: Delivery): Ending {
    this.#parts.reporter.report(asGatewayError(error), delivery.context, delivery.stage);
    return { outcome: 'unexpected' };
  }

  /** verify → read: the body of an authenticated delivery, or how the request was refused. */
  async #admit(request: WebhookRequest, delivery: Delivery): Promise<Ending | Admitted> {
    if (String(request.method).toUpperCase() !== 'POST') return { outcome: 'methodNotAllowed' };
    const auth = this.#parts.verifier.verify(request);
    if (!auth) return this.#refuse(request, delivery);
    const { maxBodyBytes, bodyTimeoutMs } = this.#parts.options;
    if (Number(header(request.headers, 'content-length')) > maxBodyBytes) return { outcome: 'tooLarge' };
    const read = this.#bodyOf(
      await readRequestBody(request.body, { maxBytes: maxBodyBytes, timeoutMs: bodyTimeoutMs }),
      delivery,
    );
    return 'outcome' in read ? read : { body: read.body, auth };
  }

  /**
   * decode → claim → answer → dispatch: each step gives what the next one needs, or how the
   * delivery ended.
   */
  async #run({ body, auth }: Admitted, delivery: Delivery): Promise<Ending> {
    const decoded = this.#decode(body, auth, delivery);
    if ('outcome' in decoded) return decoded;
    const { webhook } = decoded;
    const deadline = Date.now() + this.#parts.options.replyTimeoutMs; // the answer and the dispatch after it share it
    const claimed = await this.#claim(webhook, decoded.value, delivery);
    if ('outcome' in claimed) return claimed;
    return await this.#answerAndDispatch(webhook, delivery, deadline, claimed.kept);
  }

  /** An unauthenticated request: refused, unless it is the v3 probe (which needs no credentials). */
  async #refuse(request: WebhookRequest, delivery: Delivery): Promise<Ending> {
    const { verifier, options } = this.#parts;
    if (verifier.mayBeProbe(request) && (await isProbe(request, options.bodyTimeoutMs)))
      return { outcome: 'probe' };
    return this.#unauthorized(verifier.expected, delivery);
  }

  /** read: the body as read within `maxBodyBytes` and `bodyTimeoutMs`, or why there is none. */
  #bodyOf(read: BodyRead, delivery: Delivery): Ending | { body: unknown } {
    if (read.kind === 'tooLarge') return { outcome: 'tooLarge' };
    if (read.kind === 'timeout') return { outcome: 'bodyTimeout' };
    if (read.kind === 'gone') return { outcome: 'clientGone' };
    if (read.kind === 'missing') {
      const error = new GatewayError(`Webhook delivery not handled: ${MISSING_BODY}`);
      this.#parts.reporter.report(error, delivery.context, 'read');
      return { outcome: 'bodyMissing' };
    }
    delivery.context.rawBody = read.body;
    return { body: read.body };
  }

  /** decode: JSON, then the v2 or v3 delivery; items that do not decode are reported, the rest go on. */
  #decode(
    body: unknown,
    auth: Authentication,
    delivery: Delivery,
  ): Ending | { webhook: Webhook; value: unknown } {
    delivery.stage = 'decode';
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
      return this.#invalid(
        new WebhookParseError(decoded.issues, parsed.raw, { omitted: decoded.omitted ?? 0 }),
        delivery,
      );
    }
    const { webhook } = decoded;
    delivery.context.webhook = webhook;
    if (webhook.rejected.length > 0) this.#parts.reporter.rejectedItems(webhook, delivery.context);
    notifyDecoded(this.#parts.owner, webhook, (error) =>
      this.#parts.reporter.report(asGatewayError(error), delivery.context, 'decode'),
    );
    return { webhook, value: parsed.value };
  }

  /**
   * claim: the delivery's key (see `DeliveryKeys`; `body` is the value its JSON parsed to), when it
   * has one and dedupe is on, from the store. Goes on with the reply an earlier attempt kept, if
   * any: the responder ran already.
   */
  async #claim(webhook: Webhook, body: unknown, delivery: Delivery): Promise<Ending | { kept?: Answered }> {
    const { claims, keys } = this.#parts;
    if (!claims) return {};
    const given = keys.givenKey(webhook);
    const key = given ?? (await keys.derivedKey(webhook, body, delivery));
    if (key === undefined) return {};
    delivery.stage = 'dedupe';
    if (claims.store.processInTransaction) {
      delivery.transactionKey = key; // held by the store's transaction, once the slot is reserved
      return {};
    }
    const claimed = await claims.claim(key);
    if (claimed.state === 'done') return { outcome: 'duplicate', reply: claimed.reply };
    if (claimed.state === 'processing') return { outcome: 'processing' };
    delivery.claim = { key, token: claimed.token, derived: given === undefined };
    return claimed.reply === undefined ? {} : { kept: { reply: claimed.reply, kept: true } };
  }

  /** answer (unless a reply was kept) → dispatch, in a background place reserved before the responder runs. */
  async #answerAndDispatch(
    webhook: Webhook,
    delivery: Delivery,
    deadline: number,
    kept?: Answered,
  ): Promise<Ending> {
    const parts = this.#parts;
    const slot = parts.mode === 'background' ? parts.background.reserve() : undefined;
    if (parts.mode === 'background' && !slot) return { outcome: 'busy' };
    try {
      if (delivery.transactionKey !== undefined) {
        return await processInTransaction(parts, webhook, delivery, deadline, slot);
      }
      const kind = responderKind(webhook);
      const answered = kept ?? (kind ? await answer(parts, kind, webhook, delivery, deadline) : NO_REPLY);
      if (!answered) return { outcome: 'replyFailed' };
      delivery.stage = 'dispatch';
      if (slot) {
        startBackground(parts, webhook, delivery, slot);
        return { outcome: 'accepted', reply: answered.reply };
      }
      const dispatched = await dispatchNow(parts, webhook, delivery, deadline);
      const outcome = dispatched === 'done' ? 'accepted' : this.#dispatchFailed(answered, delivery);
      return { outcome, reply: answered.reply };
    } finally {
      slot?.cancel(); // nothing once the dispatch started in it
    }
  }

  /** The outcome of an 'await' or queue dispatch that failed, by what became of the CRM reply. */
  #dispatchFailed(answered: Answered, delivery: Delivery): Outcome {
    const hasReply = answered.reply !== undefined;
    if (hasReply && !answered.kept) return 'answeredReplyNotKept';
    const replyKept = hasReply && delivery.claim !== undefined;
    if (this.#parts.mode === 'await') return replyKept ? 'listenerFailedReplyKept' : 'listenerFailed';
    return replyKept ? 'queueFailedReplyKept' : 'queueFailed';
  }

  /**
   * settle: applies the outcome's rule to the claimed key; work still running past the answer
   * decides it when it ends, and is handed to `waitUntil` with the key's settling, so a function
   * runtime does not freeze it mid-way. A store that fails here changes no answer: the work is
   * done (or failed) already, and a claim not released ends with its lease.
   */
  #settle(ending: Ending, delivery: Delivery): Promise<void> | undefined {
    const { claim, lateWork } = delivery;
    if (!lateWork) return claim && this.#applyKey(OUTCOMES[ending.outcome].key, ending.reply, delivery);
    const settled = lateWork.then(
      (action) => claim && this.#applyKey(action, ending.reply, delivery),
      (error: unknown) => this.#parts.reporter.report(asGatewayError(error), delivery.context, 'dedupe'),
    );
    try {
      delivery.waitUntil?.(settled);
    } catch (error) {
      this.#parts.reporter.report(asGatewayError(error, 'waitUntil failed'), delivery.context, 'dispatch');
    }
  }

  /** Completes or releases the delivery's key; a store failure is reported, never thrown. */
  #applyKey(action: KeyAction, reply: unknown, delivery: Delivery): Promise<void> {
    const { claims, reporter } = this.#parts;
    return (claims as Claims)
      .apply(delivery.claim as Claim, action, reply)
      .catch((error: unknown) => reporter.report(asGatewayError(error), delivery.context, 'dedupe'));
  }

  #unauthorized(why: string, delivery: Delivery): Ending {
    this.#parts.reporter.report(
      new WebhookAuthError(`Webhook delivery refused: ${why}`),
      delivery.context,
      'auth',
    );
    return { outcome: 'unauthorized' };
  }

  #invalid(error: WebhookParseError, delivery: Delivery): Ending {
    this.#parts.reporter.report(error, delivery.context, 'decode');
    return { outcome: 'invalid' };
  }
}
