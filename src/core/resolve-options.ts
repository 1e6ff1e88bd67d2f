import type { KyInstance } from 'ky';
import type { Surface } from '../schemas/constants.js';
import { checkCount, checkHeaders, checkMs, optionError } from './checks.js';
import type { Credential } from './credentials.js';
import { GatewayError, GatewayValidationError } from './errors.js';
import { LOG_LEVELS, type Logger, type LogLevel } from './logger.js';
import type { ClientOptions, FetchLike, RequestOptions, WindowGuard } from './options.js';
import { RateLimiter, type RateLimiterLike, type RateLimitOptions } from './rate-limiter.js';

/**
 * The HTTP instances of the two APIs (ky's), built on the first call, held here so that clients
 * derived with `withOptions` share them while their addresses and `fetch` are their parent's.
 */
export interface SharedHttp {
  instances?: Promise<Record<Surface, KyInstance>> | undefined;
}

/** ClientOptions with defaults and environment fallbacks applied, every figure checked. */
export interface ResolvedClientOptions {
  token: Credential | undefined;
  apiKey: Credential | undefined;
  baseUrl: string;
  v3BaseUrl: string;
  timeout: number;
  maxRetries: number;
  maxResponseBytes: number;
  retryBackoff: { initialDelayMs: number; maxDelayMs: number };
  /** The limiter of this client; undefined when turned off. */
  limiter: RateLimiterLike | undefined;
  fetch: FetchLike | undefined;
  validateRequests: boolean;
  /** Extra headers, names in lower case. */
  headers: Record<string, string>;
  logger: Logger;
  logLevel: LogLevel;
  /** The `windows` option; undefined when sends are not checked against conversation windows. */
  windows: WindowGuard | undefined;
  /** Shared by the clients derived from this one while baseUrl, v3BaseUrl and fetch stay the same. */
  http: SharedHttp;
}

/** Per-call options checked, with the client's defaults filled in. */
export interface CallOptions {
  signal: AbortSignal | undefined;
  timeout: number;
  maxRetries: number;
  /** The call's own headers, names in lower case; undefined when it has none. */
  headers: Record<string, string> | undefined;
}

const WHAT = 'GatewayClient options';

function env(name: string): string | undefined {
  const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[
    name
  ];
  return value === '' ? undefined : value;
}

/**
 * An absolute address with no credentials, query or fragment in it: fetch refuses to make a
 * request to `https://user:pass@host` (every call would fail as if the service never answered),
 * the API's paths go after the address (after `?key=…` every call answers 404), and the address is
 * shown in errors and spans. The refusal never shows the address: it may hold a credential.
 */
function checkUrl(value: string, option: string): string {
  let message = /^[a-z][a-z\d+.-]*:\/\/[^/?#]*@|[?#]/i.test(value)
    ? 'must hold no user:password@, query (?…) or fragment (#…): a credential goes in token, apiKey or headers'
    : undefined;
  try {
    new URL(value);
  } catch {
    message ??= 'must be an absolute URL';
  }
  if (message) throw new GatewayValidationError([{ path: [option], message }], WHAT);
  return value;
}

/**
 * A credential option: when the options hold it at all, a non-empty string or a function. An
 * explicit `undefined` or `''` (an account whose token is not loaded yet) is refused, never
 * replaced by the environment's or a parent client's: that would speak for another account.
 */
function resolveCredential(options: ClientOptions, option: 'token' | 'apiKey', variable: string) {
  if (!Object.hasOwn(options, option)) return env(variable);
  const value: unknown = options[option];
  if (typeof value === 'function' || (typeof value === 'string' && value !== '')) return value as Credential;
  const message = `must be a non-empty string or a function (leave it out to use ${variable})`;
  throw new GatewayValidationError([{ path: [option], message }], WHAT);
}

function resolveLimiter(option: ClientOptions['rateLimit']): RateLimiterLike | undefined {
  if (option === false) return undefined;
  if (option === undefined) return new RateLimiter();
  if (typeof option !== 'object' || option === null) {
    throw optionError(['rateLimit'], 'false, { requests, intervalMs } or a limiter', option, WHAT);
  }
  if (typeof (option as RateLimiterLike).acquire === 'function') {
    const limiter = option as RateLimiterLike;
    if (typeof limiter.pause !== 'function')
      throw optionError(['rateLimit', 'pause'], 'a function', limiter.pause, WHAT);
    return limiter;
  }
  return new RateLimiter(option as RateLimitOptions);
}

function resolveFetch(fetch: unknown): FetchLike | undefined {
  if (fetch !== undefined && typeof fetch !== 'function')
    throw optionError(['fetch'], 'a function', fetch, WHAT);
  return fetch as FetchLike | undefined;
}

function resolveWindows(windows: unknown): WindowGuard | undefined {
  if (windows === undefined) return undefined;
  for (const method of ['beforeSend', 'learnChannels'] as const) {
    const fn = typeof windows === 'object' && windows !== null ? (windows as WindowGuard)[method] : undefined;
    if (typeof fn !== 'function')
      throw optionError(['windows', method], 'a function (pass a ConversationWindows)', fn, WHAT);
  }
  return windows as WindowGuard;
}

function resolveLogger(logger: unknown): Logger {
  if (logger === undefined) return console;
  for (const method of ['debug', 'info', 'warn', 'error'] as const) {
    const fn = typeof logger === 'object' && logger !== null ? (logger as Logger)[method] : undefined;
    if (typeof fn !== 'function') throw optionError(['logger', method], 'a function', fn, WHAT);
  }
  return logger as Logger;
}

function resolveLogLevel(option: unknown): LogLevel {
  const [value, name] = option === undefined ? [env('GATEWAY_LOG'), 'GATEWAY_LOG'] : [option, 'logLevel'];
  if (value === undefined) return 'warn';
  if (!LOG_LEVELS.includes(value as LogLevel))
    throw optionError([name], `one of ${LOG_LEVELS.join(', ')}`, value, WHAT);
  return value as LogLevel;
}

/** Applies defaults and environment fallbacks; throws a GatewayError naming any bad option. */
export function resolveClientOptions(options: ClientOptions = {}): ResolvedClientOptions {
  const baseUrl = options.baseUrl ?? env('GATEWAY_BASE_URL');
  if (!baseUrl) {
    throw new GatewayError('No base URL: pass baseUrl to GatewayClient or set GATEWAY_BASE_URL');
  }
  const v3BaseUrl = options.v3BaseUrl ?? env('GATEWAY_V3_BASE_URL') ?? baseUrl;
  const backoff = options.retryBackoff ?? {};
  return {
    token: resolveCredential(options, 'token', 'GATEWAY_TOKEN'),
    apiKey: resolveCredential(options, 'apiKey', 'GATEWAY_API_KEY'),
    baseUrl: checkUrl(baseUrl, 'baseUrl'),
    v3BaseUrl: checkUrl(v3BaseUrl, 'v3BaseUrl'),
    timeout: checkMs(options.timeout ?? 30_000, ['timeout'], WHAT),
    maxRetries: checkCount(options.maxRetries ?? 2, ['maxRetries'], WHAT, 0),
    maxResponseBytes: checkCount(options.maxResponseBytes ?? 10 * 1024 * 1024, ['maxResponseBytes'], WHAT, 1),
    retryBackoff: {
      initialDelayMs: checkMs(backoff.initialDelayMs ?? 500, ['retryBackoff', 'initialDelayMs'], WHAT, true),
      maxDelayMs: checkMs(backoff.maxDelayMs ?? 60_000, ['retryBackoff', 'maxDelayMs'], WHAT),
    },
    limiter: resolveLimiter(options.rateLimit),
    fetch: resolveFetch(options.fetch),
    validateRequests: options.validateRequests ?? true,
    headers: options.headers === undefined ? {} : checkHeaders(options.headers, ['headers'], WHAT),
    logger: resolveLogger(options.logger),
    logLevel: resolveLogLevel(options.logLevel),
    windows: resolveWindows(options.windows),
    http: {},
  };
}

/**
 * Options a client takes as they are, already resolved: what `withOptions` builds its client
 * from, so the derived client holds its parent's own limiter, logger and fetch.
 */
export class ResolvedOptions {
  constructor(readonly resolved: ResolvedClientOptions) {}
}

/**
 * The options of a client derived from one resolved as `parent`: each option given (not
 * undefined) checked as the constructor checks it and put in place of the parent's; every other
 * one the parent's own value (a `token` or `apiKey` given as undefined or empty is refused, never
 * inherited), so the limiter, the logger and fetch are the same objects. A new
 * `baseUrl` moves `v3BaseUrl` with it when the parent's two were the same address.
 * @throws GatewayValidationError naming a bad option, as the constructor does
 */
export function deriveClientOptions(
  parent: ResolvedClientOptions,
  overrides: ClientOptions,
): ResolvedClientOptions {
  // An option given as undefined keeps the parent's, but a credential given as undefined is refused.
  const given = Object.fromEntries(
    Object.entries(overrides ?? {}).filter(
      ([key, value]) => value !== undefined || key === 'token' || key === 'apiKey',
    ),
  ) as ClientOptions;
  const checked = resolveClientOptions({ baseUrl: parent.baseUrl, rateLimit: false, ...given });
  const derived: ResolvedClientOptions = { ...parent };
  for (const key of Object.keys(given) as (keyof ClientOptions)[]) {
    if (key === 'rateLimit') derived.limiter = checked.limiter;
    else if (key in checked) (derived as unknown as Record<string, unknown>)[key] = checked[key];
  }
  if (given.baseUrl !== undefined && given.v3BaseUrl === undefined && parent.v3BaseUrl === parent.baseUrl) {
    derived.v3BaseUrl = derived.baseUrl;
  }
  const sameHttp = (['baseUrl', 'v3BaseUrl', 'fetch'] as const).every((key) => derived[key] === parent[key]);
  if (!sameHttp) derived.http = {};
  return derived;
}

/** Checks a call's own options and fills in the client's; throws a GatewayValidationError. */
export function resolveCallOptions(options: RequestOptions, client: ResolvedClientOptions): CallOptions {
  const what = 'call options';
  return {
    signal: options.signal,
    timeout: options.timeout === undefined ? client.timeout : checkMs(options.timeout, ['timeout'], what),
    maxRetries:
      options.maxRetries === undefined
        ? client.maxRetries
        : checkCount(options.maxRetries, ['maxRetries'], what, 0),
    headers: options.headers === undefined ? undefined : checkHeaders(options.headers, ['headers'], what),
  };
}
