import { EventEmitter } from 'eventemitter3';
import { DeliveryTimeoutError, MessageFailedError } from '../core/errors.js';
import type { MessageStatusUpdate } from '../schemas/events-v2.js';
import type { WebhookHandler } from '../webhooks/handler.js';
import { type DeliveryStatus, type FinalStatus, rankOf } from './status-order.js';
import { StatusStore } from './status-store.js';

/** Options of {@link DeliveryTracker}. */
export interface DeliveryTrackerOptions {
  /** Messages remembered at most; the oldest go first. @default 10000 */
  maxEntries?: number;
  /** How long a status is kept for a `waitFor` that comes late (ms). @default 600000 (10 minutes) */
  retainMs?: number;
}

/** Options of {@link DeliveryTracker.waitFor}. */
export interface WaitForOptions {
  /** Resolve at this status or any later one. @default 'delivered' */
  until?: FinalStatus;
  /** Reject with DeliveryTimeoutError after this long (ms). @default 60000 */
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
  until: number;
  resolve: (update: MessageStatusUpdate) => void;
  reject: (error: unknown) => void;
}

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
 */
export class DeliveryTracker extends EventEmitter<DeliveryTrackerEvents> {
  readonly #store: StatusStore;
  readonly #waiters = new Map<string, Set<Waiter>>();
  #detach: (() => void) | undefined;

  constructor(options: DeliveryTrackerOptions = {}) {
    super();
    this.#store = new StatusStore(options.maxEntries ?? 10_000, options.retainMs ?? 600_000);
  }

  /** Listens to a handler's message.status_update deliveries. Returns the tracker, for chaining. */
  attach(handler: WebhookHandler): this {
    this.detach();
    const listener = (event: { data: MessageStatusUpdate[] }) => {
      for (const update of event.data) this.observe(update);
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

  /** Feeds one status update (done by `attach`; call it yourself for updates from elsewhere). */
  observe(update: MessageStatusUpdate): void {
    const entry = this.#store.record(update);
    if (!entry) return; // neither a request id nor a known message id: nothing to join it to
    // Waiters first: a 'status' listener that throws must never keep a waiter from settling.
    const waiters = this.#waiters.get(entry.requestId);
    if (waiters) for (const waiter of [...waiters]) this.#settle(waiter, entry.requestId);
    this.#emitStatus({ ...update, request_id: entry.requestId });
  }

  /** Emits 'status'; a listener's throw is kept from the caller (a webhook dispatch) and logged. */
  #emitStatus(update: MessageStatusUpdate & { request_id: string }): void {
    for (const listener of this.listeners('status')) {
      try {
        listener(update);
      } catch (error) {
        console.error(
          `[messaging-gateway-sdk] a DeliveryTracker 'status' listener threw: ${(error as Error)?.message ?? String(error)}`,
        );
      }
    }
  }

  /** The furthest status known for a request id or message id (`failed` once it failed), if any. */
  statusOf(id: string): DeliveryStatus | undefined {
    const entry = this.#store.get(id);
    if (entry?.failed) return 'failed';
    return entry?.best?.status as DeliveryStatus | undefined;
  }

  /**
   * Resolves with the status update that reached `until` (or a later status) for a request id,
   * or a message id once known. Rejects with MessageFailedError (status failed, with the spec's
   * reason), DeliveryTimeoutError, or the signal's reason.
   */
  waitFor(id: string, options: WaitForOptions = {}): Promise<MessageStatusUpdate> {
    const { until = 'delivered', timeoutMs = 60_000, signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const requestId = this.#store.get(id)?.requestId ?? id;
    return new Promise<MessageStatusUpdate>((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const set = this.#waiters.get(requestId);
        set?.delete(waiter);
        if (set?.size === 0) this.#waiters.delete(requestId);
      };
      const waiter: Waiter = {
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
      const onAbort = () => waiter.reject(signal?.reason);
      const timer = setTimeout(() => {
        const lastStatus = this.#store.get(requestId)?.best?.status;
        waiter.reject(new DeliveryTimeoutError({ requestId, timeoutMs, until, lastStatus }));
      }, timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      const set = this.#waiters.get(requestId) ?? new Set<Waiter>();
      set.add(waiter);
      this.#waiters.set(requestId, set);
      this.#settle(waiter, requestId); // a status may have arrived first
    });
  }

  #settle(waiter: Waiter, requestId: string): void {
    const entry = this.#store.get(requestId);
    if (!entry) return;
    if (entry.failed) {
      const { reason, message_id } = entry.failed;
      waiter.reject(
        new MessageFailedError({ reason: reason ?? null, requestId, messageId: message_id ?? null }),
      );
    } else if (entry.best && rankOf(entry.best.status) >= waiter.until) {
      waiter.resolve(entry.best);
    }
  }
}
