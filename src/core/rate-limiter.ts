import { onAbort } from '../internal/on-abort.js';
import { checkCount, checkMs } from './checks.js';
import { GatewayError } from './errors.js';

/** The client's own request-rate ceiling (spec: Limits — 500 requests per 5 seconds). */
export interface RateLimitOptions {
  /** Requests that may start in any window of `intervalMs`. @default 500 */
  requests?: number;
  /** Length of the window (ms). @default 5000 */
  intervalMs?: number;
  /**
   * Requests that may wait for a slot; one more is rejected with a retryable `GatewayError`
   * instead of growing memory without bound. @default 10000
   */
  maxQueue?: number;
}

/** Gives back the slot taken by acquire; call it when the request has its answer. */
export type Release = () => void;

/** What GatewayClient needs of a rate limiter; redisRateLimiter(...) implements it too. */
export interface RateLimiterLike {
  /**
   * Resolves with a release function when the caller may start a request. The client passes a
   * signal that aborts at the call's timeout (or the caller's abort); the limiter must then drop
   * the caller from its queue and reject with `signal.reason`.
   */
  acquire(signal?: AbortSignal): Promise<Release>;
  /**
   * Holds every new start for `ms` (after a 429). The client caps `ms` at
   * `retryBackoff.maxDelayMs` before calling, so a shared limiter never holds longer.
   */
  pause(ms: number): void | Promise<void>;
}

interface Waiter {
  resolve: (release: Release) => void;
  reject: (reason: unknown) => void;
  cancel: (() => void) | undefined;
}

/**
 * Keeps to the service's request rate whatever the network does. The service counts requests as
 * they arrive, in windows whose phase the client cannot know, so counting starts is not enough:
 * a request holds its slot from its start until `intervalMs` after its answer. At most `requests`
 * slots are held at any instant, so no window of the service, wherever it begins, sees more than
 * `requests` arrivals, and a burst far over the limit gets no 429. The rest wait first in, first
 * out. Memory: one timestamp per slot plus one record per waiter; adding, aborting and serving a
 * waiter are O(1), so 100k waiters on one signal abort in linear time.
 */
export class RateLimiter implements RateLimiterLike {
  readonly requests: number;
  readonly intervalMs: number;
  readonly maxQueue: number;
  #inFlight = 0;
  // Answer times of finished requests still inside their window, oldest first (a ring queue:
  // answers arrive in time order, so the queue stays sorted).
  readonly #done: Float64Array;
  #head = 0;
  #size = 0;
  readonly #waiting = new Set<Waiter>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #pausedUntil = 0;
  readonly #now: () => number;

  constructor(options: RateLimitOptions = {}, now: () => number = () => performance.now()) {
    this.requests = checkCount(options.requests ?? 500, ['rateLimit', 'requests'], 'options', 1);
    this.intervalMs = checkMs(options.intervalMs ?? 5000, ['rateLimit', 'intervalMs'], 'options');
    this.maxQueue = checkCount(options.maxQueue ?? 10_000, ['rateLimit', 'maxQueue'], 'options', 1);
    this.#done = new Float64Array(this.requests);
    this.#now = now;
  }

  /** Requests waiting for a slot now. */
  get pending(): number {
    return this.#waiting.size;
  }

  /**
   * Resolves with a release function when the caller may start a request. An aborted `signal`
   * removes the caller from the queue at once and rejects with the signal's reason.
   */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#waiting.size === 0 && this.#delay() === 0) return Promise.resolve(this.#take());
    if (this.#waiting.size >= this.maxQueue) {
      return Promise.reject(
        new GatewayError(`rate limiter queue is full (${this.maxQueue} waiting requests)`, {
          retryable: true,
        }),
      );
    }
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, cancel: undefined };
      if (signal) {
        waiter.cancel = onAbort(signal, (reason) => {
          this.#waiting.delete(waiter);
          reject(reason);
        });
      }
      this.#waiting.add(waiter);
      this.#drain();
    });
  }

  /** Holds every new start for `ms` (after a 429); a figure that is not a finite ms >= 0 is ignored. */
  pause(ms: number): void {
    if (!(Number.isFinite(ms) && ms > 0)) return;
    this.#pausedUntil = Math.max(this.#pausedUntil, this.#now() + ms);
    if (this.#waiting.size > 0) this.#drain();
  }

  /** 0 when a request may start now; the wait in ms when known; Infinity until a release. */
  #delay(): number {
    const now = this.#now();
    while (this.#size > 0 && (this.#done[this.#head] as number) + this.intervalMs <= now) {
      this.#head = (this.#head + 1) % this.requests;
      this.#size--;
    }
    let wait = Math.max(0, this.#pausedUntil - now);
    if (this.#inFlight + this.#size >= this.requests) {
      const free = this.#size > 0 ? (this.#done[this.#head] as number) + this.intervalMs - now : Infinity;
      wait = Math.max(wait, free);
    }
    return wait;
  }

  #take(): Release {
    this.#inFlight++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inFlight--;
      this.#done[(this.#head + this.#size) % this.requests] = this.#now();
      this.#size++;
      if (this.#waiting.size > 0) this.#drain();
    };
  }

  #drain = (): void => {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    for (const waiter of this.#waiting) {
      const wait = this.#delay();
      if (wait === Infinity) return; // every slot in flight: the next release drains again
      if (wait > 0) {
        // A queued request keeps the process alive, as a pending fetch would. Timers may fire a
        // little early, so wait 1 ms more: the window has surely moved by then.
        this.#timer = setTimeout(this.#drain, Math.ceil(wait) + 1);
        return;
      }
      this.#waiting.delete(waiter);
      waiter.cancel?.();
      waiter.resolve(this.#take());
    }
  };
}
