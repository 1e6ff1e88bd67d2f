import ky, { type KyInstance, NetworkError } from 'ky';
import { CredentialSource } from './credentials.js';
import { GatewayConnectionError, GatewayError, GatewayTimeoutError } from './errors.js';
import type { RequestOptions, ResolvedOptions } from './options.js';
import { RateLimiter } from './rate-limiter.js';
import { redact } from './redact.js';
import { apiErrorClass, apiErrorInit, parseBody, readText, unwrapEnvelope } from './response.js';
import {
  type AttemptFailure,
  backoffDelay,
  findErrorCode,
  isRetryable,
  parseRetryAfter,
} from './retry-policy.js';
import { sleep } from './sleep.js';

/** API v2 (enveloped, token) or API v3 (plain, API key). */
export type Surface = 'v2' | 'v3';

/** One call as the resources describe it: no HTTP detail beyond method, path, query, body. */
export interface CallSpec {
  surface: Surface;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path below the base address, e.g. `/v2/messages`. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
}

type Attempt =
  | { ok: true; body: unknown }
  | { ok: false; failure: AttemptFailure; error: GatewayError; retryAfterMs?: number | undefined };

const TIMED_OUT = Symbol('attempt timed out');

/** A path below the base address, without its leading slash (ky's prefix adds one). */
const relative = (path: string) => path.replace(/^\/+/, '');

/**
 * The HTTP machinery of GatewayClient: auth, the rate limiter, one ky call per attempt, the
 * retry policy and the envelope. It knows nothing of resources.
 */
export class HttpCore {
  readonly #options: ResolvedOptions;
  readonly #ky: Record<Surface, KyInstance>;
  readonly #credentials: Record<Surface, CredentialSource>;
  readonly #prefix: Record<Surface, string>;
  /** The limiter shared by every namespace of one client; undefined when turned off. */
  readonly limiter: RateLimiter | undefined;

  constructor(options: ResolvedOptions) {
    this.#options = options;
    this.limiter = options.rateLimit === false ? undefined : new RateLimiter(options.rateLimit);
    this.#prefix = { v2: options.baseUrl, v3: options.v3BaseUrl };
    // One attempt per ky call: retries, time-outs and errors are this class's policy.
    const base = { retry: 0, timeout: false as const, throwHttpErrors: false, fetch: options.fetch };
    this.#ky = {
      v2: ky.create({ ...base, prefix: options.baseUrl }),
      v3: ky.create({ ...base, prefix: options.v3BaseUrl }),
    };
    this.#credentials = {
      v2: new CredentialSource(options.token, 'token (GATEWAY_TOKEN)'),
      v3: new CredentialSource(options.apiKey, 'apiKey (GATEWAY_API_KEY)'),
    };
  }

  /** Whether request bodies are checked before sending. */
  get validateRequests(): boolean {
    return this.#options.validateRequests;
  }

  /**
   * Makes the call with retries; resolves to the envelope's `data` (v2) or the body (v3).
   * Rejects with a GatewayError subclass, or with the signal's reason when aborted.
   */
  async call(spec: CallSpec, options: RequestOptions = {}): Promise<unknown> {
    const maxRetries = options.maxRetries ?? this.#options.maxRetries;
    const credentials = this.#credentials[spec.surface];
    let refreshed = false;
    for (let retry = 0; ; ) {
      // The credential first: a missing one fails before the call takes a slot of the limiter.
      const token = await credentials.get();
      const release = await this.limiter?.acquire(options.signal);
      let attempt: Attempt;
      try {
        attempt = await this.#attempt(spec, token, options);
      } finally {
        release?.();
      }
      if (attempt.ok) return spec.surface === 'v2' ? unwrapEnvelope(attempt.body) : attempt.body;

      const { failure, error } = attempt;
      const status = failure.kind === 'status' ? failure.status : 0;
      if (status === 401 && credentials.refreshable && !refreshed) {
        refreshed = true; // spec: the token function is asked once more, the call repeated once
        continue;
      }
      if (status === 429) this.limiter?.pause(attempt.retryAfterMs ?? this.limiter.intervalMs);
      const wait = this.#retryWait(spec.method, attempt, retry + 1);
      if (retry >= maxRetries || wait === undefined) throw error;
      retry++;
      await sleep(wait, options.signal);
    }
  }

  /** Wait before the next attempt, or undefined when this failure must not be repeated. */
  #retryWait(method: string, attempt: Attempt & { ok: false }, retry: number): number | undefined {
    if (!isRetryable(method, attempt.failure)) return undefined;
    const cap = this.#options.retryBackoff.maxDelayMs ?? 60_000;
    if (attempt.retryAfterMs !== undefined) {
      // A service asking for a longer pause than we wait out gets the error back, with the hint.
      return attempt.retryAfterMs <= cap ? attempt.retryAfterMs : undefined;
    }
    return backoffDelay(retry, this.#options.retryBackoff);
  }

  /** The full address of a call, as errors report it (credentials travel in headers, never here). */
  urlOf(spec: CallSpec): string {
    const base = this.#prefix[spec.surface].replace(/\/+$/, '');
    const query = spec.query ? `?${new URLSearchParams(spec.query)}` : '';
    return `${base}/${relative(spec.path)}${query}`;
  }

  async #attempt(spec: CallSpec, token: string, options: RequestOptions): Promise<Attempt> {
    const timeoutMs = options.timeout ?? this.#options.timeout;
    // Built only when an error needs it: a successful call never pays for it.
    const where = () => ({ method: spec.method, url: this.urlOf(spec) });
    // One timer covers the whole attempt, headers and body, so a stalled body cannot hang a call.
    const timer = new AbortController();
    const handle = setTimeout(() => timer.abort(TIMED_OUT), timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timer.signal]) : timer.signal;
    try {
      const response = await this.#ky[spec.surface](relative(spec.path), {
        method: spec.method,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json, text/plain' },
        json: spec.body,
        searchParams: spec.query,
        signal,
      });
      const body = parseBody(await readText(response));
      if (response.ok) return { ok: true, body };
      const secrets = this.#secrets();
      const init = redact(apiErrorInit(response.status, body, response.headers, where()), secrets);
      const failure: AttemptFailure = { kind: 'status', status: response.status };
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
      const ErrorClass = apiErrorClass(response.status);
      const error = new ErrorClass({ ...init, retryable: isRetryable(spec.method, failure), retryAfterMs });
      return { ok: false, failure, error, retryAfterMs };
    } catch (cause) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (timer.signal.aborted) {
        const failure: AttemptFailure = { kind: 'timeout' };
        const retryable = isRetryable(spec.method, failure);
        return { ok: false, failure, error: new GatewayTimeoutError({ ...where(), timeoutMs, retryable }) };
      }
      if (cause instanceof GatewayError) throw cause;
      // Never keep ky's error as the cause: it holds the Request, and so the Authorization header.
      const root = cause instanceof NetworkError ? cause.cause : cause;
      const errorCode = findErrorCode(root);
      const failure: AttemptFailure = { kind: 'connection', errorCode };
      const retryable = isRetryable(spec.method, failure);
      const safeCause = root instanceof Error ? new Error(redact(root.message, this.#secrets())) : undefined;
      return {
        ok: false,
        failure,
        error: new GatewayConnectionError({ ...where(), errorCode, retryable, cause: safeCause }),
      };
    } finally {
      clearTimeout(handle);
    }
  }

  #secrets(): string[] {
    return [...this.#credentials.v2.secrets(), ...this.#credentials.v3.secrets()];
  }
}
