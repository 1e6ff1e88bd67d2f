import { checkCount, checkMs, MAX_TIMER_MS } from '../../core/checks.js';
import { GatewayError } from '../../core/errors.js';
import type { Webhook } from '../decode/parse.js';
import type { DedupeStore } from './dedupe-store.js';
import type { ListenerContext } from './events.js';
import { MemoryDedupeStore } from './memory-dedupe-store.js';

/**
 * When the service hears 200, and so what a crash or a failing listener costs:
 * - `'background'`: at once, listeners run after. A failing listener is reported on 'error' and
 *   the delivery counts as done (at most once); a crash mid-way loses the delivery.
 * - `'await'` (serverless): after every listener succeeded. A failing listener gives 500 and
 *   releases the key, so the service sends the delivery again; a crash gives no 200, likewise.
 * - a function or a {@link WebhookQueue} (a durable queue): after it resolved, for example once
 *   the webhook is in BullMQ; a worker then calls `hooks.receive(webhook, context)`. Rejected:
 *   503, and the service sends it again. A function gets the listeners' `context` too: queue its
 *   `url` beside the webhook when listeners route by it, since the worker knows only what the job
 *   carries.
 */
export type DispatchMode =
  | 'background'
  | 'await'
  | ((webhook: Webhook, context: ListenerContext) => Promise<unknown>)
  | WebhookQueue;

/**
 * A durable queue given as `dispatch` (as a function is): `enqueue` stores the delivery, with its
 * idempotency key when it has one, and resolves once it is kept; the delivery is answered 200
 * then. `postgresStore(db).inbox` is one: it stores the delivery and its key in one statement.
 */
export interface WebhookQueue {
  /**
   * Stores `webhook` for a worker; `key` is its idempotency key (undefined without dedupe), `url`
   * the delivery's path and query without the `secret` (what listeners get as `context.url`).
   */
  enqueue(webhook: Webhook, delivery: { key: string | undefined; url: string }): Promise<unknown>;
}

/** Options of {@link WebhookHandler}. */
export interface WebhookHandlerOptions {
  /**
   * Deliveries must carry `?secret=<value>` in their URL (v2 deliveries have no signature, so this
   * is what protects them). Compared in constant time.
   */
  secret?: string;
  /** The crmKey: a v3 delivery carrying `Authorization: Bearer <crmKey>` is authenticated by it. */
  v3AuthToken?: string;
  /**
   * Accept deliveries from anyone when neither `secret` nor `v3AuthToken` is set (local
   * experiments only: anyone who finds the address can then forge a delivery). @default false
   */
  allowUnauthenticated?: boolean;
  /** When the service hears 200 (see {@link DispatchMode}). @default 'background' */
  dispatch?: DispatchMode;
  /** `true` is `dispatch: 'await'` (the option of 0.1). */
  awaitListeners?: boolean;
  /**
   * Idempotency keys (v2 `meta.idempotency_key`, and for a CRM request without one a key derived
   * from its kind and body): `true` keeps them in memory (bounded), `false` processes every
   * delivery (a keyless CRM request's retry then runs its responder again), or a
   * {@link DedupeStore} shared by a fleet. @default true
   */
  dedupe?: boolean | DedupeStore;
  /** How long a processed key is remembered (ms). @default 86400000 (24 hours) */
  dedupeTtlMs?: number;
  /** Bodies larger than this are answered 413, and reading stops there (bytes). @default 5 MiB */
  maxBodyBytes?: number;
  /** A body not complete within this is answered 408 (ms, at most 2147483647). @default 10000 */
  bodyTimeoutMs?: number;
  /**
   * Time the whole answer may take (the responder, and under 'await' or a queue the dispatch after
   * it), under the service's 30 s limit (ms, at most 2147483647). @default 25000
   */
  replyTimeoutMs?: number;
  /** Deliveries whose listeners may run in the background at once; past it, 503. @default 10000 */
  maxPendingDispatches?: number;
}

/**
 * How a delivery is handed to a durable queue: the function given as `dispatch`, or a
 * {@link WebhookQueue}'s `enqueue`, with the delivery's key (undefined without one) and the
 * listeners' context.
 */
export type Enqueue = (
  webhook: Webhook,
  key: string | undefined,
  context: ListenerContext,
) => Promise<unknown>;

/** When the service hears 200, as the pipeline runs it: a queue is one function, whichever form was given. */
export type Dispatch = 'background' | 'await' | Enqueue;

/** The options with every default filled in and every figure checked. */
export interface ResolvedHandlerOptions {
  secret: string | undefined;
  v3AuthToken: string | undefined;
  dispatch: Dispatch;
  dedupe: DedupeStore | undefined;
  dedupeTtlMs: number;
  maxBodyBytes: number;
  bodyTimeoutMs: number;
  replyTimeoutMs: number;
  maxPendingDispatches: number;
  /** How long a claim lasts before another attempt may take the key over (ms). */
  leaseMs: number;
}

const WHAT = 'WebhookHandler options';

/** A timer's figure (ms, > 0 and within what a timer holds), checked as the client's are. */
const timerOption = (name: string, value: number | undefined, fallback: number): number =>
  checkMs(value ?? fallback, [name], WHAT);

/** A whole number >= 1 (bytes, ms or items), checked as the client's are. */
const countOption = (name: string, value: number | undefined, fallback: number): number =>
  checkCount(value ?? fallback, [name], WHAT, 1);

function dispatchOf(options: WebhookHandlerOptions): Dispatch {
  const mode = options.dispatch ?? (options.awaitListeners ? 'await' : 'background');
  if (mode === 'background' || mode === 'await') return mode;
  if (typeof mode === 'function') return (webhook, _key, context) => mode(webhook, context);
  if (typeof mode === 'object' && mode !== null && typeof mode.enqueue === 'function') {
    return (webhook, key, { url }) => mode.enqueue(webhook, { key, url });
  }
  throw new GatewayError(
    "WebhookHandler option dispatch must be 'background', 'await', a function or an object with enqueue(webhook)",
  );
}

/** Fills in defaults and refuses what would make an open or broken receiver. */
export function resolveHandlerOptions(options: WebhookHandlerOptions): ResolvedHandlerOptions {
  const secret = options.secret || undefined;
  const v3AuthToken = options.v3AuthToken || undefined;
  if (!secret && !v3AuthToken && options.allowUnauthenticated !== true) {
    throw new GatewayError(
      'WebhookHandler needs a way to tell real deliveries from forged ones: set `secret` (and subscribe ' +
        'the URL with ?secret=<value>), or `v3AuthToken` (the crmKey of API v3 deliveries), or pass ' +
        '`allowUnauthenticated: true` to accept deliveries from anyone.',
    );
  }
  const dedupe = options.dedupe ?? true;
  const replyTimeoutMs = timerOption('replyTimeoutMs', options.replyTimeoutMs, 25_000);
  return {
    secret,
    v3AuthToken,
    dispatch: dispatchOf(options),
    dedupe: dedupe === true ? new MemoryDedupeStore() : dedupe === false ? undefined : dedupe,
    dedupeTtlMs: countOption('dedupeTtlMs', options.dedupeTtlMs, 86_400_000),
    maxBodyBytes: countOption('maxBodyBytes', options.maxBodyBytes, 5 * 1024 * 1024),
    bodyTimeoutMs: timerOption('bodyTimeoutMs', options.bodyTimeoutMs, 10_000),
    replyTimeoutMs,
    maxPendingDispatches: countOption('maxPendingDispatches', options.maxPendingDispatches, 10_000),
    // Past the service's own 30 s wait for an answer, an attempt that has not finished is dead.
    // A timer waits on the lease (a late responder), so it stays within what a timer holds.
    leaseMs: Math.min(MAX_TIMER_MS, Math.max(60_000, replyTimeoutMs * 2)),
  };
}
