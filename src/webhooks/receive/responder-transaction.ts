import { GatewayError } from '../../core/errors.js';
import { LATE, within } from '../../internal/deadline.js';
import type { Webhook } from '../decode/parse.js';
import type { DedupeStore } from './dedupe-store.js';
import type { Delivery, Ending } from './delivery.js';
import type { ResponderKind } from './events.js';
import { asGatewayError } from './reporting.js';
import { type Answered, type AnswerParts, runResponder } from './responder.js';

/**
 * A CRM request whose responder the dedupe store runs in a database transaction
 * (`DedupeStore.respondInTransaction`): the responder gets the transaction as `tx`, and its reply
 * is kept with the key in the same commit, so a crash at any point leaves both or neither. The
 * answer waits for the commit. Another attempt holding the key is answered 409, a key done
 * already with its reply. Past the deadline the answer is a failure (the responder's `signal`
 * aborts), and the transaction ends when the responder really does, keeping a reply it still gives.
 */
export async function answerInTransaction(
  parts: AnswerParts,
  kind: ResponderKind,
  webhook: Webhook,
  delivery: Delivery,
  deadline: number,
): Promise<Answered | Ending | undefined> {
  delivery.stage = 'respond';
  const key = delivery.transactionKey as string;
  const store = parts.claims?.store as Required<DedupeStore>;
  const responder = parts.responders.get(kind);
  const remaining = () => Math.max(0, deadline - Date.now());
  const respond = async (tx: unknown) => {
    const run = await runResponder(kind, responder, webhook, remaining(), tx);
    return run.late ? await run.late : run.reply;
  };
  const transaction = Promise.resolve().then(() =>
    store.respondInTransaction(key, respond, parts.claims?.ttlMs as number),
  );
  let result: Awaited<typeof transaction> | typeof LATE;
  try {
    result = await within(transaction, remaining());
  } catch (error) {
    parts.reporter.report(asGatewayError(error), delivery.context, 'respond');
    return undefined;
  }
  if (result === LATE) {
    const why = `The ${kind} responder did not reply within replyTimeoutMs (${parts.replyTimeoutMs} ms)`;
    parts.reporter.report(
      new GatewayError(`${why}; its transaction commits when it ends`),
      delivery.context,
      'respond',
    );
    transaction.catch((error: unknown) =>
      parts.reporter.report(asGatewayError(error), delivery.context, 'respond'),
    );
    return undefined;
  }
  if (result.state === 'processing') return { outcome: 'processing' };
  if (result.state === 'done') return { outcome: 'duplicate', reply: result.reply };
  delivery.claim = { key, token: result.token };
  return { reply: result.reply, kept: true };
}
