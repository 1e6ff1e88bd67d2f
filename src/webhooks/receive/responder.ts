import type * as z from 'zod/mini';
import { GatewayError, GatewayValidationError } from '../../core/errors.js';
import { LATE, within } from '../../internal/deadline.js';
import { messageOf } from '../../internal/message-of.js';
import { toIssues } from '../../schemas/issues.js';
import { contactAddReply, createContactReply, createDealReply, dealAddReply } from '../../schemas/replies.js';
import type { Webhook } from '../decode/parse.js';
import type { Claim } from './claims.js';
import type { ResponderContext, ResponderKind, Responders } from './events.js';
import type { KeyAction } from './outcomes.js';
import { asGatewayError, type ReportContext, type Reporter } from './reporting.js';

/** The reply schema of each CRM request (spec: Events → contact_add / deal_add, v3 create*). */
const REPLY_SCHEMAS: Record<ResponderKind, z.ZodMiniType> = {
  'crm_entities.contact_add': contactAddReply,
  'crm_entities.deal_add': dealAddReply,
  'v3.createContact': createContactReply,
  'v3.createDeal': createDealReply,
};

/** The responder kind of a delivery, if the service expects a reply to it. */
export function responderKind(webhook: Webhook): ResponderKind | undefined {
  if (webhook.api === 'v2') {
    return webhook.event === 'crm_entities.contact_add' || webhook.event === 'crm_entities.deal_add'
      ? webhook.event
      : undefined;
  }
  return webhook.type === 'createContact' || webhook.type === 'createDeal' ? `v3.${webhook.type}` : undefined;
}

/**
 * How a responder's run ended in time: its checked reply, or `late` — the time ran out first, and
 * `late` settles when the responder really ends (with its checked reply, or rejecting).
 */
export type ResponderRun = { reply: unknown; late?: undefined } | { late: Promise<unknown> };

/**
 * Runs the responder of `kind` within `timeoutMs` and checks its reply against the spec's reply
 * schema. A failure (no responder, a throw, an invalid reply) is a GatewayError, so the handler
 * answers 5xx and the service sees it. Past `timeoutMs` the responder's `signal` is aborted (its
 * reply is no longer wanted in this answer, so it can stop before it creates an entity), and the
 * run ends `late`: the handler holds the key until the responder really ends and keeps a reply it
 * still returns, so the service's retry gets that reply rather than a second entity.
 */
export async function runResponder(
  kind: ResponderKind,
  responder: Responders[ResponderKind] | undefined,
  webhook: Webhook,
  timeoutMs: number,
  tx?: unknown,
): Promise<ResponderRun> {
  if (!responder) {
    throw new GatewayError(`No responder for ${kind}: register one with handler.respond('${kind}', fn)`);
  }
  const controller = new AbortController();
  const call = responder as (w: Webhook, context: ResponderContext) => unknown;
  const checked = Promise.resolve()
    .then(() =>
      call(webhook, tx === undefined ? { signal: controller.signal } : { signal: controller.signal, tx }),
    )
    .then(
      (reply) => check(kind, reply),
      (error: unknown) => Promise.reject(failure(kind, error)),
    );
  try {
    const reply = await within(checked, timeoutMs);
    if (reply !== LATE) return { reply };
    const late = new GatewayError(`The ${kind} responder did not reply within ${timeoutMs} ms`);
    controller.abort(late);
    return { late: checked };
  } catch (error) {
    controller.abort(error); // whatever failed, the reply is no longer wanted
    throw error;
  }
}

/** The reply when it fits the spec's reply schema of `kind`. */
function check(kind: ResponderKind, reply: unknown): unknown {
  const checked = REPLY_SCHEMAS[kind].safeParse(reply);
  if (!checked.success) throw new GatewayValidationError(toIssues(checked.error), `${kind} reply`);
  return reply;
}

function failure(kind: ResponderKind, error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError(`The ${kind} responder failed: ${messageOf(error)}`, {
    cause: error,
  });
}

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
  reporter: Reporter;
  replyTimeoutMs: number;
  leaseMs: number;
}

/**
 * What the answer step produced: the reply given in time (undefined when the responder failed or
 * was late, reported), and for a late one `lateWork`, which settles once it really ended with
 * what that does to the key.
 */
export interface Answer {
  answered: Answered | undefined;
  lateWork?: Promise<KeyAction>;
}

/**
 * Runs the responder of a CRM request before its deadline and keeps its reply with the delivery's
 * `claim` (when it holds one) before anything else runs, so a failed dispatch never makes the
 * responder run twice.
 */
export async function answer(
  parts: AnswerParts,
  kind: ResponderKind,
  webhook: Webhook,
  claim: Claim | undefined,
  context: ReportContext,
  deadline: number,
): Promise<Answer> {
  const responder = parts.responders.get(kind);
  let run: ResponderRun;
  try {
    run = await runResponder(kind, responder, webhook, Math.max(0, deadline - Date.now()));
  } catch (error) {
    parts.reporter.report(asGatewayError(error), context, 'respond');
    return { answered: undefined };
  }
  if (run.late) {
    const why = `The ${kind} responder did not reply within replyTimeoutMs (${parts.replyTimeoutMs} ms)`;
    parts.reporter.report(new GatewayError(`${why}; its key is held until it ends`), context, 'respond');
    return { answered: undefined, lateWork: keepLateReply(parts, run.late, claim, context) };
  }
  return { answered: { reply: run.reply, kept: await keepReply(parts, run.reply, claim, context) } };
}

/** Keeps the reply with the claim; a store that fails is reported, and the answer is still the reply. */
async function keepReply(
  parts: AnswerParts,
  reply: unknown,
  claim: Claim | undefined,
  context: ReportContext,
): Promise<boolean> {
  if (!claim) return true; // no key: nothing to keep it with
  try {
    await claim.keepReply(reply);
    return true;
  } catch (error) {
    parts.reporter.report(asGatewayError(error), context, 'dedupe');
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
  claim: Claim | undefined,
  context: ReportContext,
): Promise<KeyAction> {
  let ended: unknown;
  try {
    ended = await within(late, parts.leaseMs);
  } catch (error) {
    parts.reporter.report(asGatewayError(error), context, 'respond');
    return 'released';
  }
  if (ended === LATE) return 'none';
  await claim?.keepReply(ended);
  return 'released';
}
