import { untilAborted } from '../internal/on-abort.js';
import { sleep } from '../internal/sleep.js';
import type { WithResponse } from './api-promise.js';
import { type Deadline, TIMED_OUT, withDeadline } from './attempt-fetch.js';
import { attemptLine, ended, outcome, type Traced, withTrace } from './attempt-report.js';
import { addressOf, type CallSpec } from './call-spec.js';
import { CredentialSource } from './credentials.js';
import { channels, routeOf, safePath, traced } from './diagnostics.js';
import { GatewayAbortError, GatewayTimeoutError } from './errors.js';
import { Exchange } from './exchange.js';
import { LongWaits } from './limiter-wait.js';
import { Log } from './logger.js';
import type { RequestOptions, WindowGuard } from './options.js';
import type { RateLimiterLike, Release } from './rate-limiter.js';
import { Redactor } from './redact.js';
import { withRequestSent } from './request-sent.js';
import { type CallOptions, type ResolvedClientOptions, resolveCallOptions } from './resolve-options.js';
import { type Attempt, backoffDelay, isRetryable, neverConnected } from './retry-policy.js';

export type { CallSpec } from './call-spec.js';

/**
 * The HTTP machinery of GatewayClient: the credential, the rate limiter, the retry policy, the
 * log and the diagnostics channels around one {@link Exchange} per attempt. It knows nothing of
 * resources.
 */
export class HttpCore {
  readonly #options: ResolvedClientOptions;
  readonly #credentials: Record<CallSpec['surface'], CredentialSource>;
  readonly #exchange: Exchange;
  readonly #longWaits = new LongWaits();
  /** The limiter shared by every namespace of one client; undefined when turned off. */
  readonly limiter: RateLimiterLike | undefined;
  /** The client's log, scrubbed of credentials and phone numbers. */
  readonly log: Log;

  constructor(options: ResolvedClientOptions) {
    this.#options = options;
    this.limiter = options.limiter;
    const redactor = new Redactor(() => this.#secrets());
    this.log = new Log(options.logger, options.logLevel, redactor);
    const warn = (line: string) => this.log.warn(line);
    this.#credentials = {
      v2: new CredentialSource(options.token, 'token (GATEWAY_TOKEN)', warn),
      v3: new CredentialSource(options.apiKey, 'apiKey (GATEWAY_API_KEY)', warn),
    };
    this.#exchange = new Exchange(options, redactor);
  }

  /** Whether request bodies are checked before sending. */
  get validateRequests(): boolean {
    return this.#options.validateRequests;
  }

  /** The `windows` option: what a send is checked against before it leaves; undefined when none. */
  get windows(): WindowGuard | undefined {
    return this.#options.windows;
  }

  /** The full address of a call, as errors report it (credentials travel in headers, never here). */
  urlOf(spec: CallSpec): string {
    return this.#exchange.urlOf(spec);
  }

  /**
   * Makes the call with retries; resolves to `{ data, response, requestId }`, where `data` is the
   * envelope's `data` (v2) or the body (v3). Rejects with a GatewayError, always: an aborted call
   * with GatewayAbortError (the signal's reason as its cause).
   */
  async call(spec: CallSpec, options: RequestOptions = {}): Promise<WithResponse<unknown>> {
    const call = resolveCallOptions(options, this.#options);
    const where = () => ({
      method: spec.method,
      path: safePath(spec.path),
      route: routeOf(spec.path),
      api: spec.surface,
      ...spec.destination,
    });
    // What every error of the call says as `requestSent`, whichever step failed.
    const progress: CallProgress = { attempt: 0, sent: false };
    return traced(channels.request, where, async (trace: Traced | undefined) => {
      try {
        return ended(trace, await this.#call(spec, call, progress, trace));
      } catch (caught) {
        const error =
          call.signal?.aborted && caught === call.signal.reason
            ? new GatewayAbortError({ method: spec.method, url: this.urlOf(spec), cause: caught })
            : caught;
        ended(trace, withRequestSent(error, progress.sent) as Traced);
        throw error;
      }
    });
  }

  /** The attempts of one call: a 401 asks a token function once more, a failure may be repeated. */
  async #call(
    spec: CallSpec,
    call: CallOptions,
    progress: CallProgress,
    trace?: Traced,
  ): Promise<WithResponse<unknown>> {
    const credentials = this.#credentials[spec.surface];
    let refreshed = false;
    let retry = 0;
    for (;;) {
      // The credential first: a missing one fails before the call takes a slot of the limiter.
      // A token function is the user's code, awaited outside any attempt: the caller's abort ends
      // the wait for it (a string costs no listener).
      const token = await (call.signal && credentials.refreshable
        ? untilAborted(credentials.get(), call.signal)
        : credentials.get());
      progress.attempt++;
      if (trace) trace.attempts = progress.attempt;
      const result = await this.#tracedAttempt(spec, token, call, progress);
      if (result.ok) return result.answer;

      const status = result.failure.kind === 'status' ? result.failure.status : 0;
      if (status === 401 && credentials.refreshable && !refreshed) {
        refreshed = true; // spec: the token function is asked once more, the call repeated once
        this.log.info(`${spec.method} ${spec.path}: 401, asking the token function again`);
        continue;
      }
      const wait = await this.#afterFailure(spec, result, retry + 1);
      if (retry >= call.maxRetries || wait === undefined) throw result.error;
      retry++;
      if (this.log.warnOn) {
        this.log.warn(
          `${spec.method} ${spec.path}: ${outcome(result)}, retry ${retry} of ${call.maxRetries} in ${wait} ms`,
        );
      }
      await sleep(wait, call.signal);
    }
  }

  /**
   * After a 429 holds the limiter (Retry-After, else the backoff; never past maxDelayMs, so one
   * bad answer never freezes the client). Returns the wait before repeating, or undefined when
   * this failure must not be repeated.
   */
  async #afterFailure(spec: CallSpec, attempt: Attempt & { ok: false }, retry: number) {
    const cap = this.#options.retryBackoff.maxDelayMs;
    const backoff = backoffDelay(retry, this.#options.retryBackoff);
    const { retryAfterMs, failure } = attempt;
    if (failure.kind === 'status' && failure.status === 429) {
      const hold = Math.min(retryAfterMs ?? backoff, cap);
      const capped =
        retryAfterMs !== undefined && retryAfterMs > cap ? ` (Retry-After capped at ${cap} ms)` : '';
      this.log.warn(`${spec.method} ${spec.path}: 429, holding new requests for ${hold} ms${capped}`);
      await this.#pause(hold);
    }
    if (!isRetryable(spec.method, failure)) return undefined;
    // A service asking for a longer pause than we wait out gets the error back, with the hint.
    if (retryAfterMs !== undefined) return retryAfterMs <= cap ? retryAfterMs : undefined;
    return backoff;
  }

  /** Holds the limiter; a shared limiter that fails to record it never fails the call. */
  async #pause(ms: number): Promise<void> {
    try {
      await this.limiter?.pause(ms);
    } catch (error) {
      this.log.error(`rate limiter: pause after a 429 failed: ${String(error)}`);
    }
  }

  /** One attempt, published on the attempt channel. */
  #tracedAttempt(spec: CallSpec, token: string, call: CallOptions, progress: CallProgress): Promise<Attempt> {
    const n = progress.attempt;
    const context = () => ({
      method: spec.method,
      path: safePath(spec.path),
      route: routeOf(spec.path),
      url: addressOf(this.#exchange.baseOf(spec.surface), safePath(spec.path)), // no query
      attempt: n,
    });
    return traced(channels.attempt, context, async (at: Traced | undefined) =>
      ended(at, await this.#attempt(spec, token, withTrace(call, at), progress)),
    );
  }

  /**
   * One attempt: one deadline covers the wait for the limiter, the headers and the body, so
   * neither a long queue nor a stalled body (nor a limiter or a fetch that ignores the signal)
   * can hang a call past `timeout`; time that runs out before the request is handed to `fetch`
   * (in the limiter's queue, or while the HTTP client loads) means the request never left. The
   * slot is given back once the answer's headers are in: the request has surely arrived by then,
   * and reading the body does not hold back the next waiter. Notes in `progress` whether the
   * request may have left: handed to fetch, and not refused before a connection was made.
   */
  async #attempt(spec: CallSpec, token: string, call: CallOptions, progress: CallProgress): Promise<Attempt> {
    let sentAt: number | undefined;
    let left = false;
    let attempt: Attempt;
    try {
      attempt = await withDeadline(call.timeout, call.signal, async (deadline) => {
        const release = once(await this.#acquire(spec, call, deadline));
        sentAt = performance.now();
        // Time that ran out before the request reached fetch (the first call loads the HTTP
        // client, and a busy process runs overdue timers late) ends the attempt unsent.
        const leaving = () => {
          left = !deadline.expire();
        };
        const steps = { answered: release, leaving };
        try {
          return await this.#exchange.send(spec, token, call, deadline.signal, steps);
        } finally {
          release();
        }
      });
    } catch (error) {
      if (left) progress.sent = true; // ended after the request left: it may have arrived
      if (call.signal?.aborted) throw call.signal.reason;
      if (error !== TIMED_OUT) throw error;
      if (!left) throw this.#notSent(spec, call);
      attempt = this.#exchange.failed(spec, call, undefined, true);
    }
    if (left && (attempt.ok || !neverConnected(attempt.failure))) progress.sent = true;
    if (this.log.debugOn) {
      const ms = performance.now() - (sentAt ?? performance.now());
      this.log.debug(`${spec.method} ${spec.path} ${attemptLine(attempt, progress.attempt, ms)}`);
    }
    return attempt;
  }

  /**
   * A slot of the limiter, or undefined when there is none. A slot granted at or past the
   * deadline (the process was busy, the timer has not run yet) is given back at once: the call
   * never leaves.
   */
  async #acquire(spec: CallSpec, call: CallOptions, deadline: Deadline): Promise<Release | undefined> {
    const limiter = this.limiter;
    if (!limiter) return undefined;
    const started = performance.now();
    const path = () => ({ path: safePath(spec.path) });
    const release = await traced(channels.ratelimit, path, () => limiter.acquire(deadline.signal));
    if (deadline.passed()) {
      release();
      throw this.#notSent(spec, call);
    }
    const line = this.log.warnOn ? this.#longWaits.note(performance.now() - started) : undefined;
    if (line) this.log.warn(`${spec.method} ${spec.path}: ${line}`);
    return release;
  }

  /**
   * Why a call that never left the queue ends: the caller's abort, else a time-out that is
   * retryable even for a POST, since nothing was sent.
   */
  #notSent(spec: CallSpec, call: CallOptions): unknown {
    if (call.signal?.aborted) return call.signal.reason;
    const where = { method: spec.method, url: this.urlOf(spec) };
    return new GatewayTimeoutError({ ...where, timeoutMs: call.timeout, queued: true, retryable: true });
  }

  /** The credentials no error, log line or span may show (a base address cannot hold any). */
  #secrets(): string[] {
    return [...this.#credentials.v2.secrets(), ...this.#credentials.v3.secrets()];
  }
}

/** Where a call stands: its attempt under way, and whether any attempt may have reached the service. */
interface CallProgress {
  attempt: number;
  sent: boolean;
}

/** `release`, callable any number of times, giving the slot back once; a no-op for none. */
function once(release: Release | undefined): () => void {
  return () => {
    const give = release;
    release = undefined;
    give?.();
  };
}
