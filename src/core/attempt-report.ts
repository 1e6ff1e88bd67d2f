/**
 * How an attempt is told: the facts its end adds to a diagnostics context, and its log line.
 * @module
 */
import type { CallOptions } from './resolve-options.js';
import type { Attempt } from './retry-policy.js';

/** A context of the request or attempt channel, with the facts its end adds. */
export type Traced = {
  [fact: string]: unknown;
  status?: number;
  requestId?: string;
  attempts?: number;
  response?: Response;
};

/** Copies the status and request id of an answer, an attempt or an error onto a traced context. */
export function ended<T>(trace: Traced | undefined, value: T): T {
  if (!trace) return value;
  const v = value as Traced & { answer?: Traced; error?: Traced };
  const from = v.answer ?? v.error ?? v;
  trace.status = from.response?.status ?? from.status;
  trace.requestId = from.requestId;
  return value;
}

/** A subscriber may set `traceparent` on an attempt's context at its start: it is sent as a header. */
export function withTrace(call: CallOptions, at: Traced | undefined): CallOptions {
  const parent = at?.traceparent;
  return typeof parent === 'string' ? { ...call, headers: { ...call.headers, traceparent: parent } } : call;
}

/** `200`, `429`, `timeout` or the connection's error code, for a log line. */
export function outcome(attempt: Attempt): string {
  if (attempt.ok) return String(attempt.answer.response.status);
  const { failure } = attempt;
  if (failure.kind === 'status') return String(failure.status);
  return failure.kind === 'timeout' ? 'timeout' : (failure.errorCode ?? 'no response');
}

/** The debug line of an attempt: what came of it, its number, how long it took, its request id. */
export function attemptLine(attempt: Attempt, n: number, ms: number): string {
  const requestId = attempt.ok
    ? attempt.answer.requestId
    : (attempt.error as { requestId?: string }).requestId;
  return `${outcome(attempt)} attempt=${n} duration=${Math.round(ms)}ms request_id=${requestId ?? '-'}`;
}
