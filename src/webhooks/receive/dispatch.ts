import { GatewayError } from '../../core/errors.js';
import { LATE, within } from '../../internal/deadline.js';
import type { Emitter } from '../../internal/listeners.js';
import { listenerUrl } from '../../internal/query.js';
import { settleListeners } from '../../internal/settle-listeners.js';
import type { Webhook } from '../decode/parse.js';
import type { Slot } from './background-tasks.js';
import { eventName, type ListenerContext } from './events.js';
import type { Dispatch, Enqueue } from './options.js';
import type { KeyAction } from './outcomes.js';
import { asGatewayError, type ReportContext, type Reporter } from './reporting.js';

/**
 * How a dispatch under 'await' or a queue ended: `done` or `failed` within the answer's deadline;
 * when it was still running then (`failed`), `lateWork` settles with what its end does to the key.
 */
export interface Dispatched {
  result: 'done' | 'failed';
  lateWork?: Promise<KeyAction>;
}

/** What dispatching needs of the handler. */
export interface DispatchParts {
  mode: Dispatch;
  /** The handler's listeners (eventemitter3, run through `listeners(event)`). */
  emitter: Emitter;
  reporter: Reporter;
  replyTimeoutMs: number;
}

/** The delivery's key and, when it runs inside the dedupe store's transaction, that transaction. */
export interface DispatchScope {
  key: string | undefined;
  tx?: unknown;
}

/** The listeners' context of a delivery whose request is `context.request` (with `tx` when given one). */
export function listenerContextOf(context: ReportContext, tx?: unknown): ListenerContext {
  const url = listenerUrl(context.request.url);
  return tx === undefined ? { url } : { url, tx };
}

/**
 * Runs the listeners of the delivery's kind (of each kind, for a v3 body of several) and of
 * 'webhook' (once, with the whole delivery), all at once, each with `given` as its second
 * argument; reports each failure and gives them back (empty when every listener succeeded).
 */
export async function runListeners(
  parts: DispatchParts,
  webhook: Webhook,
  context: ReportContext,
  given: ListenerContext = listenerContextOf(context),
): Promise<unknown[]> {
  const { emitter } = parts;
  const kinds = webhook.api === 'v3' && webhook.also ? [webhook, ...webhook.also] : [webhook];
  const runs = kinds.map((part) => settleListeners(emitter.listeners(eventName(part)), part, given));
  if (emitter.listenerCount('webhook') > 0)
    runs.push(settleListeners(emitter.listeners('webhook'), webhook, given));
  const failures =
    runs.length === 1 ? await (runs[0] as Promise<unknown[]>) : (await Promise.all(runs)).flat();
  if (failures.length > 0) parts.reporter.listenersFailed(failures, webhook, context);
  return failures;
}

/**
 * 'background': the listeners run after the answer, in the delivery's place. Gives the promise
 * of their end (for `waitUntil`, and the trace).
 */
export function startBackground(
  parts: DispatchParts,
  webhook: Webhook,
  context: ReportContext,
  slot: Slot,
): Promise<void> {
  return slot.start(() => runListeners(parts, webhook, context));
}

/**
 * 'await' or a queue: the answer waits for the work, up to the deadline (under the service's own
 * 30 s). Work still running then is answered as failed, and its end (`lateWork`) decides the key,
 * so a retry neither runs beside it nor loses it. Inside the dedupe store's transaction the
 * listeners (or the queue function) get it as `tx`.
 */
export async function dispatchNow(
  parts: DispatchParts,
  webhook: Webhook,
  context: ReportContext,
  deadline: number,
  scope: DispatchScope,
): Promise<Dispatched> {
  const { mode } = parts;
  const given = listenerContextOf(context, scope.tx);
  const work =
    typeof mode === 'function'
      ? enqueue(parts, mode, webhook, context, scope.key, given)
      : awaitListeners(parts, webhook, context, given);
  const done = await within(work, Math.max(0, deadline - Date.now()));
  if (done !== LATE) return { result: done ? 'done' : 'failed' };
  const what = mode === 'await' ? 'The listeners' : 'The dispatch function';
  const late = `${what} did not finish within replyTimeoutMs (${parts.replyTimeoutMs} ms, the whole answer)`;
  parts.reporter.report(new GatewayError(late), context, mode === 'await' ? 'listener' : 'dispatch');
  return { result: 'failed', lateWork: work.then((ok) => (ok ? 'done' : 'released')) };
}

/** Whether every listener succeeded (each failure reported). */
async function awaitListeners(
  parts: DispatchParts,
  webhook: Webhook,
  context: ReportContext,
  given: ListenerContext,
): Promise<boolean> {
  return (await runListeners(parts, webhook, context, given)).length === 0;
}

/** Whether the queue took the delivery (its failure reported). */
async function enqueue(
  parts: DispatchParts,
  queue: Enqueue,
  webhook: Webhook,
  context: ReportContext,
  key: string | undefined,
  given: ListenerContext,
): Promise<boolean> {
  try {
    await queue(webhook, key, given);
    return true;
  } catch (error) {
    parts.reporter.report(asGatewayError(error, 'The dispatch function failed'), context, 'dispatch');
    return false;
  }
}
