import type { SendMessageParams } from '../schemas/messages.js';
import type { Credential } from './credentials.js';
import type { Logger, LogLevel } from './logger.js';
import type { RateLimiterLike, RateLimitOptions } from './rate-limiter.js';
import type { BackoffOptions } from './retry-policy.js';

/** The fetch function the client calls: the global one by default. */
export type FetchLike = (input: Request | URL | string, init?: RequestInit) => Promise<Response>;

/**
 * Options of {@link GatewayClient}. Every one is optional where an environment variable can
 * stand in for it. Each is checked when the client is built: a NaN, negative or zero figure, or a
 * value of the wrong kind, is a `GatewayValidationError` naming the option.
 * @example
 * ```ts
 * const client = new GatewayClient({ baseUrl: 'https://gateway.example/api', token: process.env.TOKEN });
 * ```
 */
export interface ClientOptions {
  /**
   * API v2 `client_access_token`, or a function returning it (sync or async), asked before each
   * call so the integrator can refresh it; after a 401 it is asked once more and the call
   * repeated once. Given as `undefined` or `''` (an account whose token is not loaded yet), it is
   * a `GatewayValidationError` naming `token`: never the environment's token, nor the parent's in
   * `withOptions`. A token under 8 characters is hidden from errors and logs only where a whole
   * value equals it (the client warns once): use such a token in tests only.
   * @default process.env.GATEWAY_TOKEN, when the option is left out
   */
  token?: Credential;
  /**
   * API v3 key, or a function returning it; refused as `token` is when given as `undefined` or `''`.
   * @default process.env.GATEWAY_API_KEY, when the option is left out
   */
  apiKey?: Credential;
  /**
   * Base address of API v2 (the part before `/v2`), without a user name, password, query or
   * fragment (each refused with a `GatewayValidationError` naming the option).
   * @default process.env.GATEWAY_BASE_URL
   */
  baseUrl?: string | undefined;
  /**
   * Base address of API v3 (before `/v3`), refused as `baseUrl` is.
   * @default process.env.GATEWAY_V3_BASE_URL, else `baseUrl`
   */
  v3BaseUrl?: string | undefined;
  /**
   * Time limit of one attempt (ms), the wait for the rate limiter included: a call that cannot
   * start in time rejects with `GatewayTimeoutError` (`queued: true`) and is never sent.
   * @default 30000
   */
  timeout?: number;
  /**
   * How many times a failed call is repeated: connection errors, time-outs, 408, 429 and 5xx for
   * GET, PATCH and DELETE; only 429 and a connection never made for POST. 0 turns repeats off.
   * @default 2
   */
  maxRetries?: number;
  /**
   * The most of an answer's body the client reads (bytes, counted after decompression, within
   * `timeout`): a larger or endless body (a compression bomb, a broken proxy) is cut there and the
   * call rejects with `GatewayResponseError` (`accepted: true` for a write that got a 2xx).
   * @default 10485760 (10 MiB)
   */
  maxResponseBytes?: number;
  /**
   * Backoff between repeats. `maxDelayMs` also caps how long a 429 holds the rate limiter, and a
   * `Retry-After` longer than it fails the call at once (with `retryAfterMs`).
   */
  retryBackoff?: BackoffOptions;
  /**
   * The client's request-rate ceiling, shared by all calls of this client: limits, `false` to
   * turn it off, or a limiter shared with other processes (any object with `acquire(signal)` and
   * `pause(ms)`, such as `redisRateLimiter(...)`). @default { requests: 500, intervalMs: 5000 }
   */
  rateLimit?: RateLimitOptions | false | RateLimiterLike;
  /**
   * A custom fetch (a proxy agent, a test double). It is called as `fetch(request, init)`; both
   * `request.signal` and `init.signal` are the attempt's signal (timeout and the caller's abort),
   * so a fetch that passes on either stops its request then. One that honours neither still ends
   * the call at its timeout, but its request may go on.
   * @default globalThis.fetch
   */
  fetch?: FetchLike;
  /** Check request bodies against the spec before sending. @default true */
  validateRequests?: boolean;
  /**
   * Extra headers on every request; a call's own `headers` add to them. `Authorization` is
   * always the client's own. @example { 'x-tenant': 'acme' }
   */
  headers?: Record<string, string>;
  /**
   * Where log lines go: any object with `debug`, `info`, `warn` and `error` taking one string
   * (`console`, pino, winston). No line holds a token, key, message text or full phone number.
   * @default console
   */
  logger?: Logger;
  /**
   * How much is logged: `debug` is every attempt (method, path, status, attempt, duration,
   * request id); `warn` is retries, 429s and rate-limit waits over a second.
   * @default process.env.GATEWAY_LOG, else 'warn'
   */
  logLevel?: LogLevel;
  /**
   * A `ConversationWindows`: each send of text or a file to a wapi or instagram chat outside its
   * conversation window, and each template past a wapi channel's tier, is refused before any
   * request with a `ConversationWindowError`. The client also tells it the transport and tier of
   * every channel it reads (`channels.list`, `get`, `create`, `reinit`). Clients derived with
   * `withOptions` share it. @default none: nothing is checked
   */
  windows?: WindowGuard;
}

/** What a channel answer tells the `windows` option: its transport and, for wapi, its tier. */
export interface ChannelFacts {
  channel_id: string;
  transport?: string | null | undefined;
  tier?: string | null | undefined;
}

/**
 * What the client calls of its `windows` option (a `ConversationWindows`): `beforeSend` before
 * each send, `learnChannels` with the channels it read.
 */
export interface WindowGuard {
  /**
   * Rejects with a `ConversationWindowError` when the send must not leave. Resolves to a function
   * the client calls with the send's error when a send that started a wapi conversation failed
   * (the conversation is given back when the service never took it), or undefined.
   */
  beforeSend(params: SendMessageParams): Promise<((error: unknown) => void) | undefined>;
  /** Learns the transport and tier of channels the client read. */
  learnChannels(channels: readonly ChannelFacts[]): Promise<void>;
}

/** Per-call options, the optional last argument of every method. */
export interface RequestOptions {
  /** Aborts the call, also while it waits for the rate limiter or between repeats. */
  signal?: AbortSignal;
  /** Time limit of one attempt (ms), the wait for the rate limiter included; overrides the client's. */
  timeout?: number;
  /** Repeats for this call; overrides the client's. */
  maxRetries?: number;
  /** Headers for this call, added to (and overriding) the client's `headers`. */
  headers?: Record<string, string>;
}
