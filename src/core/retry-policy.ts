import type { WithResponse } from './api-promise.js';
import type { GatewayError } from './errors.js';
/**
 * Which failures are repeated, and how long to wait.
 * @module
 */

/** Statuses worth repeating on an idempotent method. */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/**
 * System error codes that mean the connection was never made, so the request surely never
 * reached the service and even a POST may be repeated without sending twice.
 */
export const NEVER_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** The outcome of one attempt. */
export type Attempt =
  | { ok: true; answer: WithResponse<unknown> }
  | { ok: false; failure: AttemptFailure; error: GatewayError; retryAfterMs?: number | undefined };

/** What went wrong with one attempt, as far as the retry decision cares. */
export type AttemptFailure =
  | { kind: 'status'; status: number }
  | { kind: 'connection'; errorCode: string | undefined }
  | { kind: 'timeout' };

/**
 * Whether repeating the attempt could succeed without doing harm. The API has no idempotency
 * keys, so a POST is repeated only on 429 and when the request surely never left.
 */
export function isRetryable(method: string, failure: AttemptFailure): boolean {
  const idempotent = method.toUpperCase() !== 'POST';
  switch (failure.kind) {
    case 'status':
      return failure.status === 429 || (idempotent && RETRY_STATUSES.has(failure.status));
    case 'connection':
      return idempotent || neverConnected(failure);
    case 'timeout':
      return idempotent;
  }
}

/** Whether the failure is a connection that was never made: no byte of the request left. */
export function neverConnected(failure: AttemptFailure): boolean {
  return (
    failure.kind === 'connection' &&
    failure.errorCode !== undefined &&
    NEVER_SENT_CODES.has(failure.errorCode)
  );
}

/**
 * Longest `Retry-After` taken at its word (one day). Past it the value is absurd (a service whose
 * window is 5 s does not mean a billion seconds) and counts as absent, as does a negative or
 * unreadable one: one bad answer must not freeze the client or overflow a timer.
 */
export const MAX_RETRY_AFTER_MS = 86_400_000;

/**
 * Reads `Retry-After` given in seconds or as an HTTP date (spec: RFC 9110 §10.2.3).
 * @returns milliseconds to wait (0 for a date already past); undefined when absent, negative,
 * unreadable or over {@link MAX_RETRY_AFTER_MS}
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(text)) ms = Math.round(Number(text) * 1000);
  else {
    // A date names its month or weekday in letters; Date.parse alone takes "-5" for a year.
    const date = /[a-z]{3}/i.test(text) ? Date.parse(text) : Number.NaN;
    if (Number.isNaN(date)) return undefined;
    ms = Math.max(0, date - now);
  }
  return ms <= MAX_RETRY_AFTER_MS ? ms : undefined;
}

/** Backoff between attempts. */
export interface BackoffOptions {
  /** Wait before the first repeat (ms), doubled each time. @default 500 */
  initialDelayMs?: number;
  /** Longest wait between two attempts, also the cap on `Retry-After` (ms). @default 60000 */
  maxDelayMs?: number;
}

/**
 * Exponential backoff with jitter: between half and all of `initial * 2^(retry-1)`, capped.
 * @param retry 1 for the first repeat
 */
export function backoffDelay(
  retry: number,
  options: BackoffOptions = {},
  random: () => number = Math.random,
) {
  const initial = options.initialDelayMs ?? 500;
  const cap = options.maxDelayMs ?? 60_000;
  const full = Math.min(cap, initial * 2 ** (retry - 1));
  return Math.round(full / 2 + (random() * full) / 2);
}

/** Walks an error's `cause` chain (and AggregateError members) for a system error code. */
export function findErrorCode(error: unknown, depth = 0): string | undefined {
  if (depth > 5 || typeof error !== 'object' || error === null) return undefined;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && code !== '') return code;
  if (Array.isArray(errors)) {
    for (const member of errors) {
      const found = findErrorCode(member, depth + 1);
      if (found) return found;
    }
  }
  return findErrorCode(cause, depth + 1);
}
