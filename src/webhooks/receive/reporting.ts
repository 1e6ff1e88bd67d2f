import { GatewayError, WebhookParseError } from '../../core/errors.js';
import { ConsoleReporter } from '../../internal/console-reporter.js';
import type { Emitter } from '../../internal/listeners.js';
import { messageOf } from '../../internal/message-of.js';
import { maskSecret } from '../../internal/query.js';
import { settleListeners } from '../../internal/settle-listeners.js';
import type { Webhook } from '../decode/parse.js';
import { type ErrorContext, eventName } from './events.js';

/** Rejected items reported one by one; past it, one report counts the rest. */
const MAX_REPORTED_ITEMS = 100;

/** What a report says of its delivery. */
export type ReportContext = Omit<ErrorContext, 'stage'>;

/**
 * The handler's reports: on 'error' when someone listens, otherwise on the console (bounded: see
 * ConsoleReporter), so nothing is silently lost. An 'error' listener that throws or rejects never
 * turns a delivery into a crash.
 */
export class Reporter {
  readonly #emitter: Emitter;
  readonly #console = new ConsoleReporter();

  constructor(emitter: Emitter) {
    this.#emitter = emitter;
  }

  /** Reports `error` of the delivery `context` at `stage`. */
  report(error: GatewayError, context: ReportContext, stage: ErrorContext['stage']): void {
    if (this.#emitter.listenerCount('error') === 0) {
      this.#console.report(`[messaging-gateway-sdk] ${stage}: ${error.message}`);
      return;
    }
    // The secret is masked here, on the error path only, not on every delivery.
    const request = { ...context.request, url: maskSecret(context.request.url) };
    // A listener that fails is written to the bounded console: it may have lost the report.
    void settleListeners(this.#emitter.listeners('error'), error, { ...context, request, stage }).then(
      (failures) => {
        for (const failure of failures) {
          this.#console.report(`[messaging-gateway-sdk] an 'error' listener failed: ${messageOf(failure)}`);
        }
      },
    );
  }

  /** Reports each listener's failure of `webhook`. */
  listenersFailed(failures: readonly unknown[], webhook: Webhook, context: ReportContext): void {
    const what = webhook.api === 'v3' && webhook.also ? 'a v3 delivery' : String(eventName(webhook));
    for (const failure of failures) {
      const message = `A listener of ${what} failed: ${messageOf(failure)}`;
      this.report(new GatewayError(message, { cause: failure }), context, 'listener');
    }
  }

  /**
   * Reports each item of `webhook` that did not decode, with its raw value (the first
   * {@link MAX_REPORTED_ITEMS}, then one report counting the rest): the good items go on, and
   * nothing is lost silently.
   */
  rejectedItems(webhook: Webhook, context: ReportContext): void {
    const { rejected } = webhook;
    for (const item of rejected.slice(0, MAX_REPORTED_ITEMS)) {
      const issues = item.issues.length
        ? item.issues
        : [{ path: [item.list, item.index], message: 'rejected' }];
      this.report(new WebhookParseError(issues, item.raw), context, 'decode');
    }
    if (rejected.length > MAX_REPORTED_ITEMS) {
      const rest = rejected.length - MAX_REPORTED_ITEMS;
      const issue = { path: [], message: `${rest} more rejected items; the raw body holds them` };
      this.report(new WebhookParseError([issue], context.rawBody), context, 'decode');
    }
  }
}

/** Each handler's reporter, for the stores that run its listeners outside `handle` and `receive`. */
const reporters = new WeakMap<object, Reporter>();

/** Makes `reporter` the one {@link reportOnHandler} reports `handler`'s failures through. */
export function registerReporter(handler: object, reporter: Reporter): void {
  reporters.set(handler, reporter);
}

/**
 * Reports `error` on `handler`'s 'error' as its own reports go (the console when nobody listens):
 * how a worker that runs a handler's listeners (the PostgreSQL inbox) reports a delivery it gave
 * up on. False when `handler` is not a `WebhookHandler` (then the caller reports it elsewhere).
 */
export function reportOnHandler(
  handler: object,
  error: GatewayError,
  context: ReportContext,
  stage: ErrorContext['stage'],
): boolean {
  const reporter = reporters.get(handler);
  reporter?.report(error, context, stage);
  return reporter !== undefined;
}

/** Any failure as a GatewayError: one already is kept as it is (unless a prefix is asked for). */
export function asGatewayError(error: unknown, prefix?: string): GatewayError {
  if (error instanceof GatewayError && prefix === undefined) return error;
  const message = prefix ? `${prefix}: ${messageOf(error)}` : messageOf(error);
  return new GatewayError(message, { cause: error });
}
