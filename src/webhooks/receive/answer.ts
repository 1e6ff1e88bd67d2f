import { GatewayError } from '../../core/errors.js';
import { LATE, within } from '../../internal/deadline.js';
import type { Webhook } from '../decode/parse.js';
import type { Claims } from './claims.js';
import type { Delivery } from './delivery.js';
import type { ResponderKind, Responders } from './events.js';
import type { KeyAction } from './outcomes.js';
import { asGatewayError, type Reporter } from './reporting.js';
import { runResponder } from './responder.js';

/** A CRM reply given in time, and whether the dedupe store kept it with the key. */
export interface Answered {
  reply: unknown;
  /**
   * False when the store failed to keep it: a retry would run the responder again, so the
   * delivery is answered 200 with the reply even if its dispatch then fails.
   */
  kept: boolean;
}

/** What the answer step needs of the handler. */
export interface AnswerParts {
  responders: ReadonlyMap<ResponderKind, Responders[ResponderKind]>;
  claims: Claims | undefined;
  reporter: Reporter;
  replyTimeoutMs: number;
  leaseMs: number;
}

/**
 * Runs the responder of a CRM request before its deadline and keeps its reply with the delivery's
 * key before anything else runs, so a failed dispatch never makes the responder run twice.
 * Undefined when it failed or was late (reported; a late one holds the key through
 * `delivery.lateWork`).
 */
export async function answer(
  parts: AnswerParts,
  kind: ResponderKind,
  webhook: Webhook,
  delivery: Delivery,
  deadline: number,
): Promise<Answered | undefined> {
  delivery.stage = 'respond';
  const responder = parts.responders.get(kind);
  const run = await runResponder(kind, responder, webhook, Math.max(0, deadline - Date.now())).catch(
    (error: unknown) => void parts.reporter.report(asGatewayError(error), delivery.context, 'respond'),
  );
  if (!run) return undefined;
  if (run.late) {
    const why = `The ${kind} responder did not reply within replyTimeoutMs (${parts.replyTimeoutMs} ms)`;
    parts.reporter.report(
      new GatewayError(`${why}; its key is held until it ends`),
      delivery.context,
      'respond',
    );
    delivery.lateWork = keepLateReply(parts, run.late, delivery);
    return undefined;
  }
  return { reply: run.reply, kept: await keepReply(parts, run.reply, delivery) };
}

/** Keeps the reply with the delivery's key; a store that fails is reported, and the answer is still the reply. */
async function keepReply(parts: AnswerParts, reply: unknown, delivery: Delivery): Promise<boolean> {
  if (!delivery.claim || !parts.claims) return true; // no key: nothing to keep it with
  delivery.stage = 'dedupe';
  try {
    await parts.claims.keepReply(delivery.claim, reply);
    return true;
  } catch (error) {
    parts.reporter.report(asGatewayError(error), delivery.context, 'dedupe');
    return false;
  }
}

/**
 * A late responder: the key stays held until it really ends (at most the lease, after which the
 * store frees it); a reply it still returns is kept, so the service's retry gets that reply.
 */
async function keepLateReply(
  parts: AnswerParts,
  late: Promise<unknown>,
  delivery: Delivery,
): Promise<KeyAction> {
  let ended: unknown;
  try {
    ended = await within(late, parts.leaseMs);
  } catch (error) {
    parts.reporter.report(asGatewayError(error), delivery.context, 'respond');
    return 'released';
  }
  if (ended === LATE) return 'none';
  if (delivery.claim && parts.claims) await parts.claims.keepReply(delivery.claim, ended);
  return 'released';
}
