import { GatewayError } from '../../core/errors.js';
import { LATE, within } from '../../internal/deadline.js';
import type { Webhook } from '../decode/parse.js';
import type { Slot } from './background-tasks.js';
import type { DedupeStore } from './dedupe-store.js';
import type { Delivery, Ending } from './delivery.js';
import { type DispatchParts, dispatchNow, startBackground } from './dispatch.js';
import { asGatewayError } from './reporting.js';
import { type AnswerParts, responderKind, runResponder } from './responder.js';

/** Rolls the store's transaction back when the dispatch under 'await' or a queue failed. */
class DispatchFailed extends Error {}

/**
 * A delivery whose key the dedupe store holds in a database transaction
 * (`DedupeStore.processInTransaction`): the responder runs in it (given it as `tx`), the dispatch
 * under 'await' or a queue too (a queue in the same database, as the PostgreSQL inbox, writes in
 * it), and the key is marked done with the reply in the same commit. A crash or a failure at any
 * point leaves nothing, so the service's retry runs it again on a clean slate, at once. The answer
 * waits for the commit; background listeners start after it.
 */
export async function processInTransaction(
  parts: AnswerParts & DispatchParts,
  webhook: Webhook,
  delivery: Delivery,
  deadline: number,
  slot: Slot | undefined,
): Promise<Ending> {
  const store = parts.claims?.store as Required<Pick<DedupeStore, 'processInTransaction'>>;
  const kind = responderKind(webhook);
  const remaining = () => Math.max(0, deadline - Date.now());
  const work = async (tx: unknown) => {
    let reply: unknown;
    if (kind) {
      delivery.stage = 'respond';
      const run = await runResponder(kind, parts.responders.get(kind), webhook, remaining(), tx);
      reply = run.late ? await run.late : run.reply; // the transaction ends when the responder does
    }
    if (slot) return reply;
    delivery.stage = 'dispatch';
    if ((await dispatchNow(parts, webhook, delivery, deadline)) === 'done') return reply;
    // Work past the deadline keeps the key (the transaction) until it ends: a retry meanwhile is
    // 'processing', never run beside it; done late, it commits as done.
    if ((await delivery.lateWork) === 'done') return reply;
    throw new DispatchFailed();
  };
  const key = delivery.transactionKey as string;
  const transaction = Promise.resolve().then(() =>
    store.processInTransaction(key, work, parts.claims?.ttlMs as number, parts.leaseMs),
  );
  let result: Awaited<typeof transaction> | typeof LATE;
  try {
    result = await within(transaction, remaining());
  } catch (error) {
    if (error instanceof DispatchFailed)
      return { outcome: parts.mode === 'await' ? 'listenerFailed' : 'queueFailed' };
    parts.reporter.report(asGatewayError(error), delivery.context, delivery.stage);
    return { outcome: kind ? 'replyFailed' : 'unexpected' };
  }
  if (result === LATE) {
    const late = new GatewayError(
      `The delivery was not processed within replyTimeoutMs (${parts.replyTimeoutMs} ms); its transaction commits when its work ends`,
    );
    parts.reporter.report(late, delivery.context, delivery.stage);
    const ended = transaction.then(
      () => 'done' as const,
      (error: unknown) => {
        if (!(error instanceof DispatchFailed))
          parts.reporter.report(asGatewayError(error), delivery.context, delivery.stage);
        return 'released' as const;
      },
    );
    // Handed to `waitUntil` when the delivery settles: a function runtime (Lambda, Workers) is
    // kept alive until the transaction commits or rolls back, never frozen inside it.
    delivery.lateWork = ended;
    return { outcome: kind ? 'replyFailed' : 'unexpected' };
  }
  if (result.state === 'processing') return { outcome: 'processing' };
  if (result.state === 'done') return { outcome: 'duplicate', reply: result.reply };
  if (slot) startBackground(parts, webhook, delivery, slot);
  return { outcome: 'accepted', reply: result.reply };
}
