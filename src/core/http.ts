import type { KyInstance, Options } from 'ky';
import { onAbort, untilAborted } from '../internal/on-abort.js';
import { sleep } from '../internal/sleep.js';
import type { Surface } from '../schemas/constants.js';
import type { WithResponse } from './api-promise.js';
import { CredentialSource } from './credentials.js';
import { channels, safePath, traced } from './diagnostics.js';
import { GatewayAbortError, GatewayResponseError, GatewayTimeoutError } from './errors.js';
import { acquireWithin } from './limiter-wait.js';
import { Log } from './logger.js';
import type { FetchLike, RequestOptions } from './options.js';
import { RateLimiter, type RateLimiterLike } from './rate-limiter.js';
import { redact } from './redact.js';
import { type CallOptions, type ResolvedClientOptions, resolveCallOptions } from './resolve-options.js';
import { apiErrorClass, apiErrorInit, parseBody, readText, requestIdOf, unwrapEnvelope } from './response.js';
import {
  type Attempt,
  type AttemptFailure,
  backoffDelay,
  isRetryable,
  parseRetryAfter,
} from './retry-policy.js';
import { failedExchange } from './transport-errors.js';
import { USER_AGENT } from './user-agent.js';

/** One call as the resources describe it: no HTTP detail beyond method, path, query, body. */
export interface CallSpec {
  surface: Surface;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path below the base address, e.g. `/v2/messages`. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Where a send goes (ids and kinds only: no text, no phone), for the diagnostics channels. */
  destination?: { chatType: string | undefined; channelId: string | undefined };
}

/** The reason the attempt's own controller aborts with when its time is up. */
export const TIMED_OUT = Symbol('attempt timed out');

/**
 * The option that carries an attempt's signal through ky to fetch: ky passes the options it does
 * not know to fetch as they are, and {@link fetchWithAttemptSignal} makes it the fetch's `signal`.
 */
const ATTEMPT_SIGNAL = 'mgsdkAttemptSignal';

/**
 * The runtime's own fetch, as it was when this module loaded: the one fetch trusted to reject on
 * its `init.signal` in every phase (connect, headers, body). A fetch put in place of the global
 * one later (a test double, `vi.stubGlobal`, an interceptor) is a fetch like a user's.
 */
const BUILT_IN_FETCH: FetchLike | undefined = globalThis.fetch;

/** Whether the call's fetch is the runtime's own, so the attempt need not be raced with its signal. */
const usesBuiltInFetch = (fetch: FetchLike | undefined) =>
  fetch === undefined && globalThis.fetch === BUILT_IN_FETCH;

/**
 * The fetch ky calls: the client's (or the global one, looked up at each call, so a test that
 * replaces it is heard), given the attempt's own signal as `init.signal`, which takes the place
 * of the signal of ky's request. Any fetch but the runtime's own also gets a request whose
 * `signal` is the attempt's: a fetch that passes on the request and drops `init` (a proxy agent's
 * `(request) => fetch(request, { dispatcher })`) then still stops its request at the timeout and
 * at the caller's abort, as it did when ky was given the signal.
 */
function fetchWithAttemptSignal(fetch: FetchLike | undefined): FetchLike {
  return (input, init) => {
    const { [ATTEMPT_SIGNAL]: signal, ...rest } = (init ?? {}) as RequestInit & {
      [ATTEMPT_SIGNAL]?: AbortSignal;
    };
    const use = fetch ?? globalThis.fetch;
    if (!signal) return use(input, rest);
    if (usesBuiltInFetch(fetch)) return use(input, { ...rest, signal });
    const request = input instanceof Request ? new Request(input, { signal }) : input;
    const fetched = use(request, { ...rest, signal });
    // Held until the fetch settles: undici's Request follows the signal it was given through a
    // weak reference, and a fetch handed only the request makes a request of its own that follows
    // this one's signal. Unheld, a garbage collection mid-request cut the timeout and the caller's
    // abort off from the connection, which then stayed open.
    return Promise.resolve(fetched).finally(() => void request);
  };
}

/** A path below the base address, without its leading slash (ky's prefix adds one). */
const relative = (path: string) => path.replace(/^\/+/, '');

/**
 * The HTTP machinery of GatewayClient: auth, the rate limiter, one ky call per attempt, the
 * retry policy, the envelope and the log. It knows nothing of resources.
 */
export class HttpCore {
  readonly #options: ResolvedClientOptions;
  // Loaded on the first call, not at import: ky costs about as much to load as zod.
  #ky: Promise<Record<Surface, KyInstance>> | undefined;
  readonly #kyOptions: Parameters<KyInstance['create']>[0];
  readonly #credentials: Record<Surface, CredentialSource>;
  readonly #prefix: Record<Surface, string>;
  readonly #headers: Record<string, string>;
  /** The limiter shared by every namespace of one client; undefined when turned off. */
  readonly limiter: RateLimiterLike | undefined;
  /** The client's log, scrubbed of credentials and phone numbers. */
  readonly log: Log;
  #longWaits = { count: 0, longest: 0, loggedAt: Number.NEGATIVE_INFINITY };

  constructor(options: ResolvedClientOptions) {
    this.#options = options;
    this.limiter = options.limiter;
    this.#prefix = { v2: options.baseUrl, v3: options.v3BaseUrl };
    // One attempt per ky call: retries, time-outs and errors are this class's policy. Redirects
    // are answers, never followed: a 307 would re-send a message body to another host (issue 11).
    const base = {
      retry: 0,
      timeout: false as const,
      throwHttpErrors: false,
      redirect: 'manual' as const,
      fetch: fetchWithAttemptSignal(options.fetch),
    };
    this.#kyOptions = base;
    this.#credentials = {
      v2: new CredentialSource(options.token, 'token (GATEWAY_TOKEN)'),
      v3: new CredentialSource(options.apiKey, 'apiKey (GATEWAY_API_KEY)'),
    };
    this.#headers = { 'user-agent': USER_AGENT, accept: 'application/json, text/plain', ...options.headers };
    this.log = new Log(options.logger, options.logLevel, () => this.#secrets());
  }
  /** The two ky instances (v2, v3), created when the first call needs them. */
  #instances(): Promise<Record<Surface, KyInstance>> {
    this.#ky ??= import('ky').then(
      ({ default: ky }) => ({
        v2: ky.create({ ...this.#kyOptions, prefix: this.#options.baseUrl }),
        v3: ky.create({ ...this.#kyOptions, prefix: this.#options.v3BaseUrl }),
      }),
      (error: unknown) => {
        this.#ky = undefined; // let the next call try again
        throw error;
      },
    );
    return this.#ky;
  }

  /** Whether request bodies are checked before sending. */
  get validateRequests(): boolean {
    return this.#options.validateRequests;
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
      api: spec.surface,
      ...spec.destination,
    });
    return traced(channels.request, where, async (trace: Traced | undefined) => {
      try {
        return ended(trace, await this.#call(spec, call, trace));
      } catch (error) {
        ended(trace, error as Traced);
        if (call.signal?.aborted && error === call.signal.reason) {
          throw new GatewayAbortError({ ...this.#where(spec), cause: error });
        }
        throw error;
      }
    });
  }

  async #call(spec: CallSpec, call: CallOptions, trace?: Traced): Promise<WithResponse<unknown>> {
    const credentials = this.#credentials[spec.surface];
    let refreshed = false;
    for (let retry = 0, attempt = 1; ; attempt++) {
      // The credential first: a missing one fails before the call takes a slot of the limiter.
      // A token function is the user's code, awaited outside any attempt: the caller's abort ends
      // the wait for it (a string costs no listener).
      const token = await (call.signal && credentials.refreshable
        ? untilAborted(credentials.get(), call.signal)
        : credentials.get());
      if (trace) trace.attempts = attempt;
      const result = await traced(
        channels.attempt,
        () => ({
          method: spec.method,
          path: safePath(spec.path),
          url: this.#prefix[spec.surface].replace(/\/+$/, '') + safePath(spec.path),
          attempt,
        }),
        async (at: Traced | undefined) =>
          ended(at, await this.#attempt(spec, token, withTrace(call, at), attempt)),
      );
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

  /** The full address of a call, as errors report it (credentials travel in headers, never here). */
  urlOf(spec: CallSpec): string {
    const base = this.#prefix[spec.surface].replace(/\/+$/, '');
    const query = spec.query ? `?${new URLSearchParams(spec.query)}` : '';
    return `${base}/${relative(spec.path)}${query}`;
  }

  /**
   * One attempt: one timer covers the wait for the limiter, the headers and the body, so neither
   * a long queue nor a stalled body can hang a call past `timeout`.
   */
  async #attempt(spec: CallSpec, token: string, call: CallOptions, n: number): Promise<Attempt> {
    if (call.signal?.aborted) throw call.signal.reason;
    const controller = new AbortController();
    const deadline = performance.now() + call.timeout;
    const timer = setTimeout(() => controller.abort(TIMED_OUT), call.timeout);
    const unlink = call.signal ? onAbort(call.signal, (reason) => controller.abort(reason)) : undefined;
    try {
      let release = this.limiter && (await this.#acquire(spec, controller.signal, call));
      if (release && (controller.signal.aborted || performance.now() >= deadline)) {
        // A slot granted at (or past) the deadline: the call never left, and never will.
        release();
        if (call.signal?.aborted) throw call.signal.reason;
        throw this.#notSent(spec, call);
      }
      // The slot is given back once the answer's headers are in: the request has surely arrived
      // by then, and reading the body does not hold back the next waiter.
      const answered = () => {
        const give = release;
        release = undefined;
        give?.();
      };
      try {
        return await this.#exchange(spec, token, call, controller.signal, n, answered);
      } finally {
        answered();
      }
    } finally {
      clearTimeout(timer);
      unlink?.();
    }
  }

  async #acquire(spec: CallSpec, signal: AbortSignal, call: CallOptions) {
    const started = performance.now();
    try {
      const limiter = this.limiter as RateLimiterLike;
      // The built-in limiter honours its signal; only a limiter of the user's needs the guard.
      const release = await traced(
        channels.ratelimit,
        () => ({ path: safePath(spec.path) }),
        () => (limiter instanceof RateLimiter ? limiter.acquire(signal) : acquireWithin(limiter, signal)),
      );
      if (this.log.warnOn) this.#noteQueueWait(spec, performance.now() - started);
      return release;
    } catch (error) {
      if (call.signal?.aborted) throw call.signal.reason;
      if (!signal.aborted) throw error;
      throw this.#notSent(spec, call);
    }
  }

  /** A call that timed out waiting for the rate limiter: never sent, so retryable even for a POST. */
  #notSent(spec: CallSpec, call: CallOptions): GatewayTimeoutError {
    return new GatewayTimeoutError({
      ...this.#where(spec),
      timeoutMs: call.timeout,
      queued: true,
      retryable: true,
    });
  }

  /**
   * Warns of waits over a second for the limiter, at most one line a second: a burst of a
   * thousand sends is one line with a count, not a thousand lines.
   */
  #noteQueueWait(spec: CallSpec, waited: number): void {
    if (waited <= 1000) return;
    const waits = this.#longWaits;
    waits.count++;
    waits.longest = Math.max(waits.longest, waited);
    const now = performance.now();
    if (now - waits.loggedAt < 1000) return;
    const others = waits.count > 1 ? ` (${waits.count} such waits since the last line)` : '';
    this.log.warn(
      `${spec.method} ${spec.path}: waited ${Math.round(waits.longest)} ms for the rate limiter${others}`,
    );
    this.#longWaits = { count: 0, longest: 0, loggedAt: now };
  }

  async #exchange(
    spec: CallSpec,
    token: string,
    call: CallOptions,
    signal: AbortSignal,
    n: number,
    answered: () => void,
  ) {
    const started = performance.now();
    const headers = call.headers ? { ...this.#headers, ...call.headers } : { ...this.#headers };
    headers.authorization = `Bearer ${token}`;
    let attempt: Attempt;
    try {
      const instances = await this.#instances();
      const exchange = instances[spec.surface](relative(spec.path), {
        method: spec.method,
        headers,
        json: spec.body,
        searchParams: spec.query,
        // Not `signal`: ky would merge it with its own through AbortSignal.any, ~5% of a call.
        [ATTEMPT_SIGNAL]: signal,
      } as Options).then((response) => {
        answered();
        return this.#answer(spec, response);
      });
      // Any fetch but the runtime's own (the user's, or a double in place of the global one) is
      // raced with our own signal: the call settles at its deadline whatever that fetch does with
      // the signal. The built-in fetch rejects on it, headers or body, so the race would only
      // cost (a listener and three promises per call).
      attempt = usesBuiltInFetch(this.#options.fetch) ? await exchange : await untilAborted(exchange, signal);
    } catch (cause) {
      if (call.signal?.aborted) throw call.signal.reason;
      const timedOut = signal.aborted;
      attempt = failedExchange(
        cause,
        { ...this.#where(spec), timedOut, timeoutMs: call.timeout },
        this.#secrets(),
      );
    }
    if (this.log.debugOn)
      this.log.debug(`${spec.method} ${spec.path} ${outcome(attempt)} ${attemptFacts(attempt, n, started)}`);
    return attempt;
  }

  async #answer(spec: CallSpec, response: Response): Promise<Attempt> {
    const limit = this.#options.maxResponseBytes;
    const text = await readText(response, limit);
    if (text === undefined) {
      const { status } = response;
      const tooLarge = new GatewayResponseError({
        ...this.#where(spec),
        status,
        why: `over maxResponseBytes (${limit})`,
      });
      return { ok: false, failure: { kind: 'status', status }, error: tooLarge };
    }
    const body = parseBody(text);
    const requestId = requestIdOf(response.headers, body);
    if (response.ok) {
      const data = spec.surface === 'v2' ? unwrapEnvelope(body) : body;
      return { ok: true, answer: { data, response, requestId } };
    }
    const init = apiErrorInit(response.status, body, response.headers, this.#where(spec));
    const failure: AttemptFailure = { kind: 'status', status: response.status };
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
    const ErrorClass = apiErrorClass(response.status);
    const retryable = isRetryable(spec.method, failure);
    const error = new ErrorClass({ ...redact(init, this.#secrets()), retryable, retryAfterMs });
    return { ok: false, failure, error, retryAfterMs };
  }

  /** Built only when an error needs it: a successful call never pays for it. */
  #where(spec: CallSpec) {
    return { method: spec.method, url: this.urlOf(spec) };
  }

  #secrets(): string[] {
    return [...this.#credentials.v2.secrets(), ...this.#credentials.v3.secrets()];
  }
}

/** A context of the request or attempt channel, with the facts its end adds. */
type Traced = {
  [fact: string]: unknown;
  status?: number;
  requestId?: string;
  attempts?: number;
  response?: Response;
};

/** Copies the status and request id of an answer, an attempt or an error onto a traced context. */
function ended<T>(trace: Traced | undefined, value: T): T {
  if (!trace) return value;
  const v = value as Traced & { answer?: Traced; error?: Traced };
  const from = v.answer ?? v.error ?? v;
  trace.status = from.response?.status ?? from.status;
  trace.requestId = from.requestId;
  return value;
}

/** A subscriber may set `traceparent` on an attempt's context at its start: it is sent as a header. */
function withTrace(call: CallOptions, at: Traced | undefined): CallOptions {
  const parent = at?.traceparent;
  return typeof parent === 'string' ? { ...call, headers: { ...call.headers, traceparent: parent } } : call;
}

/** `200`, `429`, `timeout` or the connection's error code, for a log line. */
function outcome(attempt: Attempt): string {
  if (attempt.ok) return String(attempt.answer.response.status);
  const { failure } = attempt;
  if (failure.kind === 'status') return String(failure.status);
  return failure.kind === 'timeout' ? 'timeout' : (failure.errorCode ?? 'no response');
}

function attemptFacts(attempt: Attempt, n: number, started: number): string {
  const requestId = attempt.ok
    ? attempt.answer.requestId
    : (attempt.error as { requestId?: string }).requestId;
  const duration = Math.round(performance.now() - started);
  return `attempt=${n} duration=${duration}ms request_id=${requestId ?? '-'}`;
}
