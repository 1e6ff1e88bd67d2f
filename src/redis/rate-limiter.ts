import { randomUUID } from 'node:crypto';
import { GatewayError } from '../core/errors.js';
import { onAbort } from '../internal/on-abort.js';
import { sleep } from '../internal/sleep.js';
import { type RedisCallOptions, type RedisClientLike, RedisConnection } from './connection.js';
import type { RateLimiterLike, Release } from './contracts.js';
import { hashTag } from './hash-tag.js';
import { acquireScript, cancelScript, pauseScript, releaseScript } from './rate-limiter-scripts.js';

/** Options of {@link redisRateLimiter}. */
export interface RedisRateLimiterOptions extends RedisCallOptions {
  /** Names the shared limit: every process using the same key shares it (e.g. the account id). */
  key: string;
  /** Requests that may arrive at the service in any window of `intervalMs`, from all processes together. @default 500 */
  requests?: number;
  /** Length of the window (ms). @default 5000 */
  intervalMs?: number;
  /** Requests of this process that may wait; one more is rejected with a retryable GatewayError. @default 10000 */
  maxQueue?: number;
  /**
   * How long a slot stays taken when its process dies before the answer (ms): longer than any
   * request takes. @default 60000
   */
  leaseMs?: number;
  /** Prefix of the Redis keys. @default 'mgsdk:rl:' */
  prefix?: string;
}

/**
 * The share of the limit one ask may take. Uncapped, the first process to ask takes the whole
 * first window and sends its requests alone while the others wait, and every later window
 * inherits that spread, one interval on.
 */
const ASK_SHARE = 0.1;

interface Waiter {
  resolve: (release: Release) => void;
  reject: (reason: unknown) => void;
  /** Stops listening to the waiter's signal. */
  cancelAbort: (() => void) | undefined;
}

/**
 * A rate limit shared by every process that uses the same Redis and `key`; see
 * {@link redisRateLimiter}. Within a process, requests start first in, first out, and only the
 * head of the queue asks Redis, for as many slots as are waiting in one script call, but at most
 * a tenth of the limit at a time: processes that wait together share a window
 * instead of the first asker taking all of it, so their requests go out from every process at
 * once (in parallel, on connections each already has open).
 */
export class RedisRateLimiter implements RateLimiterLike {
  readonly requests: number;
  readonly intervalMs: number;
  readonly maxQueue: number;
  readonly leaseMs: number;
  readonly #redis: RedisConnection;
  readonly #slots: string;
  readonly #hold: string;
  readonly #id = randomUUID();
  #batch = 0;
  readonly #waiting = new Set<Waiter>();
  #pumping = false;
  #pausedUntil = 0;
  #toRelease: string[] = [];

  constructor(redis: RedisClientLike, options: RedisRateLimiterOptions) {
    this.requests = options.requests ?? 500;
    this.intervalMs = options.intervalMs ?? 5000;
    this.maxQueue = options.maxQueue ?? 10_000;
    this.leaseMs = options.leaseMs ?? 60_000;
    if (!options.key) throw new GatewayError('redisRateLimiter needs a key (e.g. the account id)');
    if (!(this.requests >= 1) || !(this.intervalMs > 0) || !(this.leaseMs > 0)) {
      throw new GatewayError('redisRateLimiter needs requests >= 1, intervalMs > 0 and leaseMs > 0');
    }
    this.#redis = new RedisConnection(redis, options);
    // One hash tag holding the whole key (hash-tag.ts): both keys share a slot of a Redis Cluster.
    const base = `${options.prefix ?? 'mgsdk:rl:'}${hashTag(options.key)}`;
    this.#slots = `${base}:slots`;
    this.#hold = `${base}:hold`;
  }

  /** Requests of this process waiting for a slot now. */
  get pending(): number {
    return this.#waiting.size;
  }

  /**
   * Resolves with a release function when the caller may start a request. An aborted `signal`
   * removes the caller from the queue at once and rejects with the signal's reason; Redis
   * unreachable rejects with a retryable GatewayError.
   */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#waiting.size >= this.maxQueue) {
      return Promise.reject(
        new GatewayError(`rate limiter queue is full (${this.maxQueue} waiting requests)`, {
          retryable: true,
        }),
      );
    }
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, cancelAbort: undefined };
      if (signal) {
        // One listener per signal however many wait on it (internal/on-abort): linear, not quadratic.
        waiter.cancelAbort = onAbort(signal, (reason) => {
          this.#waiting.delete(waiter);
          reject(reason);
        });
      }
      this.#waiting.add(waiter);
      void this.#pump();
    });
  }

  /** Holds every new start of every process sharing the key for `ms` (after a 429). */
  async pause(ms: number): Promise<void> {
    this.#pausedUntil = Math.max(this.#pausedUntil, Date.now() + ms);
    // The local hold stands even when Redis cannot be told; the others then meet their own 429.
    await this.#redis.eval(pauseScript, [this.#hold], [Math.ceil(ms)]).catch(() => {});
  }

  // Only one loop per process talks to Redis: the head of the queue, for everyone waiting.
  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#waiting.size > 0) {
        const paused = this.#pausedUntil - Date.now();
        if (paused > 0) await sleep(paused);
        else await this.#ask();
      }
    } finally {
      this.#pumping = false;
    }
  }

  async #ask(): Promise<void> {
    const wanted = Math.min(this.#waiting.size, Math.ceil(this.requests * ASK_SHARE));
    const member = `${this.#id}:${++this.#batch}`;
    let granted: number;
    let waitMs: number;
    try {
      // An ask that fails may still take its slots late: the cancel of its member takes them back.
      const reply = (await this.#redis.evalOrUndo(
        acquireScript,
        [this.#slots, this.#hold],
        [this.requests, wanted, this.leaseMs, member, this.intervalMs],
        { script: cancelScript, keys: [this.#slots], args: [member, wanted] },
      )) as [number, number];
      [granted, waitMs] = reply.map(Number) as [number, number];
    } catch (error) {
      // Those this call asked for fail fast (retryable); the rest ask again.
      for (const waiter of [...this.#waiting].slice(0, wanted)) this.#settle(waiter).reject(error);
      return;
    }
    for (let i = 1; i <= granted; i++) {
      const [waiter] = this.#waiting;
      const release = this.#releaser(`${member}:${i}`);
      if (waiter) this.#settle(waiter).resolve(release);
      else release(); // the waiter left meanwhile: the slot counts as used, to be safe
    }
    if (granted < wanted) await sleep(waitMs);
  }

  #settle(waiter: Waiter): Waiter {
    this.#waiting.delete(waiter);
    waiter.cancelAbort?.();
    return waiter;
  }

  #releaser(member: string): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // Releases of one tick go in one script call.
      if (this.#toRelease.push(member) === 1) queueMicrotask(this.#flush);
    };
  }

  #flush = (): void => {
    const members = this.#toRelease;
    this.#toRelease = [];
    // A release that fails leaves the slot to its lease: fewer starts for a while, never more.
    void this.#redis
      .eval(releaseScript, [this.#slots], [this.intervalMs, this.leaseMs + this.intervalMs, ...members])
      .catch(() => {});
  };
}

/**
 * A rate limit shared by every process that uses the same Redis and `key`: together they start
 * no more than `requests` requests in any window of `intervalMs`, whatever the window's phase,
 * measured on Redis's clock (a sliding log in one Lua script). A 429 seen by one process holds
 * all of them. FIFO within a process; an aborted signal leaves the queue at once; Redis
 * unreachable fails the wait with a retryable GatewayError within `timeoutMs`.
 * @example
 * ```ts
 * import Redis from 'ioredis';
 * import { GatewayClient } from 'messaging-gateway-sdk';
 * import { redisRateLimiter } from 'messaging-gateway-sdk/redis';
 *
 * const redis = new Redis(process.env.REDIS_URL).on('error', (error) => console.warn('redis', error.message));
 * const client = new GatewayClient({ rateLimit: redisRateLimiter(redis, { key: 'account-42' }) });
 * ```
 */
export function redisRateLimiter(redis: RedisClientLike, options: RedisRateLimiterOptions): RedisRateLimiter {
  return new RedisRateLimiter(redis, options);
}
