import type { Redactor } from './redact.js';

/** How much the client logs: each level includes the ones before it. */
export const LOG_LEVELS = ['off', 'error', 'warn', 'info', 'debug'] as const;
/** `'off'` | `'error'` | `'warn'` | `'info'` | `'debug'`. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Where log lines go. `console` fits, and so does a pino or winston logger: each line is one
 * string argument.
 */
export interface Logger {
  /** Every attempt: method, path, status, attempt number, duration, request id. */
  debug(message: string): void;
  /** A token refreshed after a 401. */
  info(message: string): void;
  /** Retries, 429s, and waits of over a second for the rate limiter. */
  warn(message: string): void;
  /** A shared rate limiter that failed to record a 429's hold. */
  error(message: string): void;
}

const PREFIX = '[messaging-gateway-sdk] ';

/**
 * Shows only the last 4 digits of anything that looks like a phone number: 7 digits or more in a
 * row, with or without `+`, standing on its own (a group of a UUID, between hyphens, is an id
 * and kept whole, so request ids stay searchable).
 */
export function maskPhones(text: string): string {
  return text.replace(/(?<![\w-])\+?\d{7,}(?![\w-])/g, (digits) => `…${digits.slice(-4)}`);
}

/**
 * The client's log: level checks done once, so a call at the default level builds no string,
 * and every line scrubbed of credentials and full phone numbers before it leaves.
 */
export class Log {
  /** True when `debug` lines are written; check it before building one. */
  readonly debugOn: boolean;
  /** True when `info` lines are written. */
  readonly infoOn: boolean;
  /** True when `warn` lines are written. */
  readonly warnOn: boolean;
  /** True when `error` lines are written. */
  readonly errorOn: boolean;
  readonly #logger: Logger;
  readonly #redactor: Redactor;

  constructor(logger: Logger, level: LogLevel, redactor: Redactor) {
    const rank = LOG_LEVELS.indexOf(level);
    this.debugOn = rank >= 4;
    this.infoOn = rank >= 3;
    this.warnOn = rank >= 2;
    this.errorOn = rank >= 1;
    this.#logger = logger;
    this.#redactor = redactor;
  }

  /** Writes a debug line (when on). */
  debug(line: string): void {
    if (this.debugOn) this.#logger.debug(this.#clean(line));
  }
  /** Writes an info line (when on). */
  info(line: string): void {
    if (this.infoOn) this.#logger.info(this.#clean(line));
  }
  /** Writes a warn line (when on). */
  warn(line: string): void {
    if (this.warnOn) this.#logger.warn(this.#clean(line));
  }
  /** Writes an error line (when on). */
  error(line: string): void {
    if (this.errorOn) this.#logger.error(this.#clean(line));
  }

  #clean(line: string): string {
    return PREFIX + maskPhones(this.#redactor.text(line));
  }
}
