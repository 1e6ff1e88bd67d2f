import { checkCount, checkMs } from '../core/checks.js';
import { DeliveryTimeoutError, GatewayAbortError, MessageFailedError } from '../core/errors.js';
import { type Emitter, emitterOf, Listeners } from '../internal/listeners.js';
import { messageOf } from '../internal/message-of.js';
import { onAbort } from '../internal/on-abort.js';
import { settleListeners } from '../internal/settle-listeners.js';
import type { MessageStatusUpdate } from '../schemas/events-v2.js';
import type { WebhookHandler } from '../webhooks/receive/handler.js';
import type { DeliveryStore, StatusEntry } from './delivery-store.js';
import { type DeliveryStatus, type FinalStatus, rankOf } from './status-order.js';
import { StatusStore } from './status-store.js';

/** How long a wait whose store could not be read after an interrupted feed waits to read again. */
const RESYNC_RETRY_MS = 1_000;

/** Options of {@link DeliveryTracker}. */
export interface DeliveryTrackerOptions {
  /** Messages remembered at most (in this process; a whole number >= 1); the oldest go first. @default 10000 */
  maxEntries?: number;
  /**
   * How long a status is kept for a `waitFor` that comes late (ms, a whole number >= 1).
   * @default 600000 (10 minutes)
   */
  retainMs?: number;
  /**
   * Where statuses are kept. The default is in memory, for one process; a shared store such as
   * `redisDeliveryStore(redis)` lets a `waitFor` on one instance resolve when the status reaches
   * any instance (its own `retainMs` then bounds the shared statuses' age).
   */
  store?: DeliveryStore;
}

/** Options of {@link DeliveryTracker.waitFor}. */
export interface WaitForOptions {
  /** Resolve at this status or any later one. @default 'delivered' */
  until?: FinalStatus;
  /**
   * Reject with DeliveryTimeoutError after this long (ms, > 0 and at most 2147483647, what a timer
   * holds; otherwise `waitFor` rejects with a GatewayValidationError). @default 60000
   */
  timeoutMs?: number;
  /** Reject with the signal's reason when it aborts. */
  signal?: AbortSignal;
}

/** The events of a DeliveryTracker. */
export interface DeliveryTrackerEvents {
  /** Every status update it receives, with the request id it belongs to (when known). */
  status: (update: MessageStatusUpdate & { request_id: string | null }) => void;
}

interface Waiter {
  id: string;
  until: number;
  resolve: (update: MessageStatusUpdate) => void;
  reject: (error: unknown) => void;
}

const isPromise = <T>(value: T | Promise<T>): value is Promise<T> =>
  typeof (value as Promise<T> | undefined)?.then === 'function';

/**
 * Joins the asynchronous halves of a send: `messages.send` returns a `request_id`, and the
 * outcome arrives later as message.status_update webhooks. Statuses are ordered accepted < sent <
 * delivered < read; `waitFor` resolves at its `until` status or any later one, and rejects with
 * MessageFailedError on failed. A status that arrives before `waitFor` is called (webhooks can be
 * faster than the send's response) is kept for a while and still resolves it. Memory is bounded.
 * @example
 * ```ts
 * const tracker = new DeliveryTracker().attach(hooks);
 * const { request_id } = await client.messages.send(message);
 * const update = await tracker.waitFor(request_id, { until: 'delivered', timeoutMs: 60_000 });
 * ```
 * A fleet shares a store: `new DeliveryTracker({ store: redisDeliveryStore(redis) })` (from
 * `messaging-gateway-sdk/redis`).
 */
export class DeliveryTracker extends Listeners<DeliveryTrackerEvents> {
  readonly #emitter: Emitter;
  readonly #store: DeliveryStore;
  // What this process has seen: the store itself when it is the in-memory one; else a mirror fed
  // by this process's statuses and the shared store's feed (for statusOf and time-out errors).
  readonly #seen: StatusStore;
  readonly #waiters = new Map<string, Set<Waiter>>();
  #subscribed: Promise<void> | undefined;
  #detach: (() => void) | undefined;
  #resyncTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: DeliveryTrackerOptions = {}) {
    const emitter = emitterOf();
    super(emitter);
    this.#emitter = emitter;
    const what = 'DeliveryTracker options';
    this.#seen = new StatusStore(
      checkCount(options.maxEntries ?? 10_000, ['maxEntries'], what, 1),
      checkCount(options.retainMs ?? 600_000, ['retainMs'], what, 1),
    );
    this.#store = options.store ?? this.#seen;
  }

  /** Listens to a handler's message.status_update deliveries. Returns the tracker, for chaining. */
  attach(handler: WebhookHandler): this {
    this.detach();
    // With a shared store the listener's promise fails when the status could not be stored, so
    // the delivery is not answered 200 (and the service sends it again).
    const listener = (event: { data: MessageStatusUpdate[] }) => {
      const pending = event.data.map((update) => this.observe(update)).filter(isPromise);
      return pending.length ? Promise.all(pending).then(() => {}) : undefined;
    };
    handler.on('message.status_update', listener);
    this.#detach = () => handler.off('message.status_update', listener);
    return this;
  }

  /** Stops listening to the attached handler. */
  detach(): void {
    this.#detach?.();
    this.#detach = undefined;
  }

  /**
   * Feeds one status update (done by `attach`; call it yourself for updates from elsewhere).
   * With a shared store it returns a promise that settles once the status is stored and
   * published (and rejects with a retryable GatewayError when the store is unreachable).
   */
  observe(update: MessageStatusUpdate): void | Promise<void> {
    const recorded = this.#store.record(update);
    if (isPromise(recorded)) return recorded.then((entry) => this.#recorded(update, entry));
    this.#recorded(update, recorded);
  }

  #recorded(update: MessageStatusUpdate, entry: StatusEntry | undefined): void {
    if (!entry) return; // neither a request id nor a known message id: nothing to join it to
    // Waiters first: a 'status' listener that throws must never keep a waiter from settling.
    this.#onEntry(entry);
    this.#emitStatus({ ...update, request_id: entry.requestId });
  }

  #onEntry = (entry: StatusEntry): void => {
    if (this.#seen !== this.#store) this.#seen.merge(entry);
    for (const id of [entry.requestId, entry.messageId]) {
      const waiters = id === undefined ? undefined : this.#waiters.get(id);
      if (waiters) for (const waiter of [...waiters]) this.#settle(waiter, entry);
    }
  };

  /** Emits 'status'; a listener's throw is kept from the caller (a webhook dispatch) and logged. */
  #emitStatus(update: MessageStatusUpdate & { request_id: string }): void {
    // Every listener runs (`once` honoured); a throw or rejection is logged, never thrown into the
    // delivery that carried the status.
    void settleListeners(this.#emitter.listeners('status'), update).then((failures) => {
      for (const error of failures) {
        console.error(
          `[messaging-gateway-sdk] a DeliveryTracker 'status' listener failed: ${messageOf(error)}`,
        );
      }
    });
  }

  /**
   * The furthest status known for a request id or message id (`failed` once it failed), if any.
   * With a shared store: what this process has seen (its own statuses, and those of other
   * instances since its first `waitFor`); `waitFor` reads the shared store itself.
   */
  statusOf(id: string): DeliveryStatus | undefined {
    const entry = this.#seen.get(id);
    if (entry?.failed) return 'failed';
    return entry?.best?.status as DeliveryStatus | undefined;
  }

  /**
   * Resolves with the status update that reached `until` (or a later status) for a request id,
   * or a message id once known. Rejects with MessageFailedError (status failed, with the spec's
   * reason), DeliveryTimeoutError, or GatewayAbortError (cause: the signal's reason). With a shared store it subscribes
   * first, then reads, so a status that reached any instance before or during the wait is seen;
   * the store unreachable at the start rejects with a retryable GatewayError; once waiting, a read
   * that fails after the store's feed was interrupted is tried again each second until `timeoutMs`.
   */
  waitFor(id: string, options: WaitForOptions = {}): Promise<MessageStatusUpdate> {
    const { until = 'delivered', timeoutMs = 60_000, signal } = options;
    try {
      checkMs(timeoutMs, ['timeoutMs'], 'DeliveryTracker.waitFor options');
    } catch (error) {
      return Promise.reject(error); // a timer cannot hold it: it would fire at once
    }
    if (signal?.aborted) return Promise.reject(aborted(id, signal.reason));
    return new Promise<MessageStatusUpdate>((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        cancelAbort?.();
        const set = this.#waiters.get(id);
        set?.delete(waiter);
        if (set?.size === 0) this.#waiters.delete(id);
      };
      const waiter: Waiter = {
        id,
        until: rankOf(until),
        resolve: (update) => {
          cleanup();
          resolve(update);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        const entry = this.#seen.get(id);
        const lastStatus = entry?.best?.status;
        waiter.reject(
          new DeliveryTimeoutError({ requestId: entry?.requestId ?? id, timeoutMs, until, lastStatus }),
        );
      }, timeoutMs);
      // One listener per signal however many wait on it (internal/on-abort): linear, not quadratic.
      const cancelAbort = signal
        ? onAbort(signal, (reason) => waiter.reject(aborted(id, reason)))
        : undefined;
      const set = this.#waiters.get(id) ?? new Set<Waiter>();
      set.add(waiter);
      this.#waiters.set(id, set);
      this.#check(waiter); // a status may have arrived first
    });
  }

  // Reads the store for one waiter: at once from the in-memory store; from a shared one only
  // once subscribed, so nothing recorded between the read and the subscription is missed.
  #check(waiter: Waiter): void {
    if (this.#store === this.#seen) {
      const entry = this.#seen.get(waiter.id);
      if (entry) this.#settle(waiter, entry);
      return;
    }
    this.#subscribe()
      .then(() => this.#store.get(waiter.id))
      .then((entry) => entry && this.#onEntry(entry), waiter.reject);
  }

  #subscribe(): Promise<void> {
    this.#subscribed ??= (
      this.#store.subscribe?.({ entry: this.#onEntry, resync: this.#resync }) ?? Promise.resolve()
    ).catch((error: unknown) => {
      this.#subscribed = undefined; // the next wait tries again
      throw error;
    });
    return this.#subscribed;
  }

  // The feed was interrupted: every id waited for is read again (once, however many wait on it).
  // A read that fails then (the store is still coming back, as after a server restart) does not
  // end the wait: every id is read again a second later, until each wait settles or its own
  // timeoutMs ends it.
  #resync = (): void => {
    for (const id of [...this.#waiters.keys()]) {
      Promise.resolve(id)
        .then((waited) => this.#store.get(waited))
        .then((entry) => entry && this.#onEntry(entry), this.#resyncLater);
    }
  };

  #resyncLater = (): void => {
    if (this.#resyncTimer) return;
    this.#resyncTimer = setTimeout(() => {
      this.#resyncTimer = undefined;
      this.#resync();
    }, RESYNC_RETRY_MS);
    this.#resyncTimer.unref?.();
  };

  #settle(waiter: Waiter, entry: StatusEntry): void {
    if (entry.failed) {
      const { reason, message_id } = entry.failed;
      waiter.reject(
        new MessageFailedError({
          reason: reason ?? null,
          requestId: entry.requestId,
          messageId: message_id ?? null,
        }),
      );
    } else if (entry.best && rankOf(entry.best.status) >= waiter.until) {
      waiter.resolve(entry.best);
    }
  }
}

/** What a wait stopped by its signal rejects with. */
const aborted = (id: string, reason: unknown) =>
  new GatewayAbortError({ method: 'waitFor', url: id, cause: reason });
