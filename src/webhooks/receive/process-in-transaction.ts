import { GatewayError } from '../../core/errors.js';
import { LATE, within } from '../../internal/deadline.js';
import type { Webhook } from '../decode/parse.js';
import type { Slot } from './background-tasks.js';
import type { Ending, TransactionKey } from './delivery.js';
import { type DispatchParts, dispatchNow, startBackground } from './dispatch.js';
import type { ErrorContext } from './events.js';
import type { KeyAction } from './outcomes.js';
import type { ReportContext } from './reporting.js';
import { asGatewayError } from './reporting.js';
import { type AnswerParts, responderKind, runResponder } from './responder.js';

/** Rolls the store's transaction back when the dispatch under 'await' or a queue failed. */
class DispatchFailed extends Error {}

/**
 * What processing in the store's transaction came to: how the delivery ended, and the work
 * still running past the answer (the transaction, when it outlived the deadline) or after it
 * (the background listeners, started once it committed).
 */
export interface TransactionEnd {
  ending: Ending;
  lateWork?: Promise<KeyAction>;
  background?: Promise<void>;
}

/**
 * A delivery whose key the dedupe store holds in a database transaction
 * (`DedupeStore.processInTransaction`): the responder runs in it (given it as `tx`), and so does
 * the dispatch under 'await' or a queue (the listeners, or the queue function, get it as `tx`, so
 * their writes commit with the reply; a queue in the same database, as the PostgreSQL inbox,
 * writes in it), and the key is marked done with the reply in the same commit. A crash or a
 * failure at any point leaves nothing, so the service's retry runs it again on a clean slate, at
 * once. The store rolls the transaction back when the work outlives the lease, which frees the
 * key. The answer waits for the commit; background listeners start after it.
 */
export async function processInTransaction(
  parts: AnswerParts & DispatchParts,
  held: TransactionKey,
  webhook: Webhook,
  context: ReportContext,
  deadline: number,
  slot: Slot | undefined,
): Promise<TransactionEnd> {
  const kind = responderKind(webhook);
  const remaining = () => Math.max(0, deadline - Date.now());
  let stage: ErrorContext['stage'] = 'dedupe'; // the step under way in the transaction, for its failure's report
  const work = async (tx: unknown) => {
    let reply: unknown;
    if (kind) {
      stage = 'respond';
      const run = await runResponder(kind, parts.responders.get(kind), webhook, remaining(), tx);
      reply = run.late ? await run.late : run.reply; // the transaction ends when the responder does
    }
    if (slot) return reply;
    stage = 'dispatch';
    const dispatched = await dispatchNow(parts, webhook, context, deadline, { key: held.key, tx });
    // Work past the deadline keeps the key (the transaction) until it ends: a retry meanwhile is
    // 'processing', never run beside it; done late, it commits as done.
    if (dispatched.result === 'done' || (await dispatched.lateWork) === 'done') return reply;
    throw new DispatchFailed();
  };
  const transaction = Promise.resolve().then(() => held.inTransaction(work));
  const failed = (): Ending => ({ outcome: kind ? 'replyFailed' : 'unexpected' });
  let result: Awaited<typeof transaction> | typeof LATE;
  try {
    result = await within(transaction, remaining());
  } catch (error) {
    if (error instanceof DispatchFailed)
      return { ending: { outcome: parts.mode === 'await' ? 'listenerFailed' : 'queueFailed' } };
    parts.reporter.report(asGatewayError(error), context, stage);
    return { ending: failed() };
  }
  if (result === LATE) return lateTransaction(parts, transaction, context, () => stage, failed());
  if (result.state === 'processing') return { ending: { outcome: 'processing' } };
  if (result.state === 'done') return { ending: { outcome: 'duplicate', reply: result.reply } };
  const background = slot && startBackground(parts, webhook, context, slot);
  return { ending: { outcome: 'accepted', reply: result.reply }, background };
}

/**
 * A transaction still running at the deadline: reported, and answered as `ending`. Its end, commit
 * or rollback (the store's, at the lease at the latest), is the work's end (`lateWork`): handed to
 * `waitUntil`, so a function runtime (Lambda, Workers) is kept alive until then, never frozen
 * inside it.
 */
function lateTransaction(
  parts: AnswerParts,
  transaction: Promise<unknown>,
  context: ReportContext,
  stage: () => ErrorContext['stage'],
  ending: Ending,
): TransactionEnd {
  const late = `The delivery was not processed within replyTimeoutMs (${parts.replyTimeoutMs} ms); its transaction commits when its work ends`;
  parts.reporter.report(new GatewayError(late), context, stage());
  const lateWork = transaction.then(
    (): KeyAction => 'done',
    (error: unknown): KeyAction => {
      if (!(error instanceof DispatchFailed)) parts.reporter.report(asGatewayError(error), context, stage());
      return 'released';
    },
  );
  return { ending, lateWork };
}
