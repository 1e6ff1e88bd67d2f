import type * as z from 'zod/mini';
import { GatewayError, GatewayValidationError } from '../../core/errors.js';
import { LATE, within } from '../../internal/deadline.js';
import { messageOf } from '../../internal/message-of.js';
import { toIssues } from '../../schemas/issues.js';
import { contactAddReply, createContactReply, createDealReply, dealAddReply } from '../../schemas/replies.js';
import type { Webhook } from '../decode/parse.js';
import type { ResponderContext, ResponderKind, Responders } from './events.js';

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
): Promise<ResponderRun> {
  if (!responder) {
    throw new GatewayError(`No responder for ${kind}: register one with handler.respond('${kind}', fn)`);
  }
  const controller = new AbortController();
  const call = responder as (w: Webhook, context: ResponderContext) => unknown;
  const checked = Promise.resolve()
    .then(() => call(webhook, { signal: controller.signal }))
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
