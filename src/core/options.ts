import type { Credential } from './credentials.js';
import { GatewayError } from './errors.js';
import type { RateLimitOptions } from './rate-limiter.js';
import type { BackoffOptions } from './retry-policy.js';

/** The fetch function the client calls: the global one by default. */
export type FetchLike = (input: Request | URL | string, init?: RequestInit) => Promise<Response>;

/**
 * Options of {@link GatewayClient}. Every one is optional where an environment variable can
 * stand in for it.
 * @example
 * ```ts
 * const client = new GatewayClient({ baseUrl: 'https://gateway.example/api', token: process.env.TOKEN });
 * ```
 */
export interface ClientOptions {
  /**
   * API v2 `client_access_token`, or a function returning it (sync or async), asked before each
   * call so the integrator can refresh it; after a 401 it is asked once more and the call
   * repeated once. @default process.env.GATEWAY_TOKEN
   */
  token?: Credential | undefined;
  /** API v3 key. @default process.env.GATEWAY_API_KEY */
  apiKey?: Credential | undefined;
  /** Base address of API v2 (the part before `/v2`). @default process.env.GATEWAY_BASE_URL */
  baseUrl?: string | undefined;
  /** Base address of API v3 (before `/v3`). @default process.env.GATEWAY_V3_BASE_URL, else `baseUrl` */
  v3BaseUrl?: string | undefined;
  /** Time limit of one attempt (ms). @default 30000 */
  timeout?: number;
  /** How many times a failed call is repeated (see DESIGN.md for which failures). @default 2 */
  maxRetries?: number;
  /** Backoff between repeats, and the longest `Retry-After` that is waited out. */
  retryBackoff?: BackoffOptions;
  /**
   * The client's own request-rate ceiling, shared by all calls of this client. `false` turns
   * it off. @default { requests: 500, intervalMs: 5000 }
   */
  rateLimit?: RateLimitOptions | false;
  /** A custom fetch (a proxy agent, a test double). @default globalThis.fetch */
  fetch?: FetchLike;
  /** Check request bodies against the spec before sending. @default true */
  validateRequests?: boolean;
}

/** Per-call options, the optional last argument of every method. */
export interface RequestOptions {
  /** Aborts the call, also while it waits for the rate limiter or between repeats. */
  signal?: AbortSignal;
  /** Time limit of one attempt (ms); overrides the client's. */
  timeout?: number;
  /** Repeats for this call; overrides the client's. */
  maxRetries?: number;
}

/** ClientOptions with defaults and environment fallbacks applied. */
export interface ResolvedOptions {
  token: Credential | undefined;
  apiKey: Credential | undefined;
  baseUrl: string;
  v3BaseUrl: string;
  timeout: number;
  maxRetries: number;
  retryBackoff: BackoffOptions;
  rateLimit: RateLimitOptions | false;
  fetch: FetchLike | undefined;
  validateRequests: boolean;
}

function env(name: string): string | undefined {
  const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[
    name
  ];
  return value === '' ? undefined : value;
}

function checkUrl(value: string, option: string): string {
  try {
    new URL(value);
  } catch {
    throw new GatewayError(`${option} must be an absolute URL, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** Applies defaults and environment fallbacks; throws GatewayError when no base URL is known. */
export function resolveOptions(options: ClientOptions = {}): ResolvedOptions {
  const baseUrl = options.baseUrl ?? env('GATEWAY_BASE_URL');
  if (!baseUrl) {
    throw new GatewayError('No base URL: pass baseUrl to GatewayClient or set GATEWAY_BASE_URL');
  }
  const v3BaseUrl = options.v3BaseUrl ?? env('GATEWAY_V3_BASE_URL') ?? baseUrl;
  const maxRetries = options.maxRetries ?? 2;
  const timeout = options.timeout ?? 30_000;
  if (!(maxRetries >= 0) || !(timeout > 0)) {
    throw new GatewayError('maxRetries must be >= 0 and timeout > 0');
  }
  return {
    token: options.token ?? env('GATEWAY_TOKEN'),
    apiKey: options.apiKey ?? env('GATEWAY_API_KEY'),
    baseUrl: checkUrl(baseUrl, 'baseUrl'),
    v3BaseUrl: checkUrl(v3BaseUrl, 'v3BaseUrl'),
    timeout,
    maxRetries,
    retryBackoff: options.retryBackoff ?? {},
    rateLimit: options.rateLimit ?? {},
    fetch: options.fetch,
    validateRequests: options.validateRequests ?? true,
  };
}
