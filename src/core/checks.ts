/**
 * Options checked at the door: a NaN, negative or zero figure where it makes no sense
 * (`Number(process.env.UNSET)` gives NaN) is a GatewayValidationError naming the option, thrown
 * when the option is given, never a call that hangs or a loop that does nothing.
 * @module
 */
import { GatewayValidationError } from './errors.js';

/** Longest delay a timer can hold; past it Node fires at once and warns. */
export const MAX_TIMER_MS = 2_147_483_647;

function shown(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  return value === null ? 'null' : typeof value;
}

/** The error of one bad option; `what` names the options it belongs to. */
export function optionError(path: string[], rule: string, value: unknown, what: string) {
  return new GatewayValidationError([{ path, message: `must be ${rule}, got ${shown(value)}` }], what);
}

/** A time in ms: finite, > 0 (or >= 0 with `zero`), and within what a timer can hold. */
export function checkMs(value: unknown, path: string[], what: string, zero = false): number {
  const ok =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (zero ? value >= 0 : value > 0) &&
    value <= MAX_TIMER_MS;
  if (!ok)
    throw optionError(
      path,
      `a number of milliseconds ${zero ? '>= 0' : '> 0'} and <= ${MAX_TIMER_MS}`,
      value,
      what,
    );
  return value;
}

/**
 * A whole number >= `min` (and <= `max` when given: {@link MAX_TIMER_MS} for a whole number of
 * milliseconds a timer waits).
 */
export function checkCount(value: unknown, path: string[], what: string, min: number, max?: number): number {
  const ok = typeof value === 'number' && Number.isSafeInteger(value) && value >= min;
  if (!ok || (max !== undefined && value > max)) {
    throw optionError(
      path,
      `a whole number >= ${min}${max === undefined ? '' : ` and <= ${max}`}`,
      value,
      what,
    );
  }
  return value;
}

/** Extra headers: a plain object of string values whose names and values HTTP accepts. */
export function checkHeaders(value: unknown, path: string[], what: string): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw optionError(path, 'an object of header names to string values', value, what);
  }
  const out: Record<string, string> = {};
  for (const [name, header] of Object.entries(value)) {
    if (typeof header !== 'string') throw optionError([...path, name], 'a string', header, what);
    try {
      new Headers([[name, header]]);
    } catch {
      // The value is not shown: a header may hold a secret.
      throw new GatewayValidationError(
        [{ path: [...path, name], message: 'is not a valid HTTP header' }],
        what,
      );
    }
    out[name.toLowerCase()] = header;
  }
  return out;
}
