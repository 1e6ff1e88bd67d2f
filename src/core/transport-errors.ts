import { GatewayConnectionError, GatewayError, GatewayTimeoutError } from './errors.js';
import type { Redactor } from './redact.js';
import { type Attempt, type AttemptFailure, findErrorCode, isRetryable } from './retry-policy.js';

/** Where the failed exchange went, and whether its time ran out. */
export interface ExchangeContext {
  method: string;
  url: string;
  timedOut: boolean;
  timeoutMs: number;
}

/**
 * The failed attempt of an exchange that got no answer: a time-out, or a connection error.
 * Never keeps ky's error as the cause: it holds the Request, and so the Authorization header.
 */
export function failedExchange(cause: unknown, context: ExchangeContext, redactor: Redactor): Attempt {
  const { method, url, timeoutMs } = context;
  if (context.timedOut) {
    const failure: AttemptFailure = { kind: 'timeout' };
    const retryable = isRetryable(method, failure);
    return { ok: false, failure, error: new GatewayTimeoutError({ method, url, timeoutMs, retryable }) };
  }
  if (cause instanceof GatewayError) throw cause;
  // ky wraps a failed fetch in its NetworkError (matched by name: ky is loaded only on first call).
  const root = (cause as Error | undefined)?.name === 'NetworkError' ? (cause as Error).cause : cause;
  const errorCode = findErrorCode(root);
  const failure: AttemptFailure = { kind: 'connection', errorCode };
  const retryable = isRetryable(method, failure);
  const safeCause = root instanceof Error ? new Error(redactor.text(root.message)) : undefined;
  return {
    ok: false,
    failure,
    error: new GatewayConnectionError({ method, url, errorCode, retryable, cause: safeCause }),
  };
}
