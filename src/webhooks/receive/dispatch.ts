import { GatewayError } from '../../core/errors.js';
import { LATE, within } from '../../internal/deadline.js';
import type { ListenerMap } from '../../internal/listener-map.js';
import { listenerUrl } from '../../internal/query.js';
import { settleListeners } from '../../internal/settle-listeners.js';
import type { Webhook } from '../decode/parse.js';
import type { Slot } from './background-tasks.js';
import type { Delivery } from './delivery.js';
import { eventName, type ListenerContext, type WebhookEvents } from './events.js';
import type { DispatchMode } from './options.js';
import { asGatewayError, type ReportContext, type Reporter } from './reporting.js';

/** How a dispatch under 'await' or a queue function ended within the answer's deadline. */
export type DispatchResult = 'done' | 'failed';

/** What dispatching needs of the handler. */
export interface DispatchParts {
  mode: DispatchMode;
  listeners: ListenerMap<WebhookEvents>;
  reporter: Reporter;
  replyTimeoutMs: number;
}

/** The listeners' context of a delivery whose request is `context.request`. */
export function listenerContextOf(context: ReportContext): ListenerContext {
  return { url: listenerUrl(context.request.url) };
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
  const { listeners } = parts;
  const kinds = webhook.api === 'v3' && webhook.also ? [webhook, ...webhook.also] : [webhook];
  const runs = kinds.map((part) => settleListeners(listeners, eventName(part), part, given));
  if (listeners.entries('webhook').length > 0)
    runs.push(settleListeners(listeners, 'webhook', webhook, given));
  const failures =
    runs.length === 1 ? await (runs[0] as Promise<unknown[]>) : (await Promise.all(runs)).flat();
  if (failures.length > 0) parts.reporter.listenersFailed(failures, webhook, context);
  return failures;
}

/** 'background': the listeners run after the answer, in the delivery's place, handed to `waitUntil` when there is one. */
export function startBackground(
  parts: DispatchParts,
  webhook: Webhook,
  delivery: Delivery,
  slot: Slot,
): void {
  const task = slot.start(() => runListeners(parts, webhook, delivery.context));
  delivery.background = task;
  try {
    delivery.waitUntil?.(task);
  } catch (error) {
    parts.reporter.report(asGatewayError(error, 'waitUntil failed'), delivery.context, 'dispatch');
  }
}

/**
 * 'await' or a queue function: the answer waits for the work, up to the deadline (under the
 * service's own 30 s). Work still running then is answered as failed, and the key waits for its
 * end through `delivery.lateWork`, so a retry neither runs beside it nor loses it.
 */
export async function dispatchNow(
  parts: DispatchParts,
  webhook: Webhook,
  delivery: Delivery,
  deadline: number,
): Promise<DispatchResult> {
  const work =
    parts.mode === 'await' ? awaitListeners(parts, webhook, delivery) : enqueue(parts, webhook, delivery);
  const done = await within(work, Math.max(0, deadline - Date.now()));
  if (done !== LATE) return done ? 'done' : 'failed';
  const what = parts.mode === 'await' ? 'The listeners' : 'The dispatch function';
  const late = `${what} did not finish within replyTimeoutMs (${parts.replyTimeoutMs} ms, the whole answer)`;
  parts.reporter.report(
    new GatewayError(late),
    delivery.context,
    parts.mode === 'await' ? 'listener' : 'dispatch',
  );
  delivery.lateWork = work.then((ok) => (ok ? 'done' : 'released'));
  return 'failed';
}

/** Whether every listener succeeded (each failure reported). */
async function awaitListeners(parts: DispatchParts, webhook: Webhook, delivery: Delivery): Promise<boolean> {
  return (await runListeners(parts, webhook, delivery.context)).length === 0;
}

/** Whether the queue function (or the queue's `enqueue`, given the delivery's key) resolved (its failure reported). */
async function enqueue(parts: DispatchParts, webhook: Webhook, delivery: Delivery): Promise<boolean> {
  const queue = parts.mode as Exclude<DispatchMode, string>;
  try {
    const given = listenerContextOf(delivery.context);
    const key = delivery.claim?.key ?? delivery.transactionKey;
    await (typeof queue === 'function'
      ? queue(webhook, given)
      : queue.enqueue(webhook, { key, url: given.url }));
    return true;
  } catch (error) {
    parts.reporter.report(
      asGatewayError(error, 'The dispatch function failed'),
      delivery.context,
      'dispatch',
    );
    return false;
  }
}
