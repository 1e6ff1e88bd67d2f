import type * as z from 'zod/mini';
import { GatewayError, GatewayValidationError } from '../../core/errors.js';
import { LATE, within } from '../../internal/deadline.js';
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
 * Runs the responder of `kind` within `timeoutMs` and checks its reply against the spec's reply
 * schema. Every failure (no responder, a throw, a late or invalid reply) is a GatewayError, so
 * the handler answers 5xx and the service sees it. The responder's `signal` is aborted when its
 * reply is no longer wanted, so it can stop before it creates an entity nobody will hear of.
 */
export async function runResponder(
  kind: ResponderKind,
  responder: Responders[ResponderKind] | undefined,
  webhook: Webhook,
  timeoutMs: number,
): Promise<unknown> {
  if (!responder) {
    throw new GatewayError(`No responder for ${kind}: register one with handler.respond('${kind}', fn)`);
  }
  const controller = new AbortController();
  try {
    const call = responder as (w: Webhook, context: ResponderContext) => unknown;
    const reply = await within(Promise.resolve(call(webhook, { signal: controller.signal })), timeoutMs);
    if (reply === LATE) throw new GatewayError(`The ${kind} responder did not reply within ${timeoutMs} ms`);
    const checked = REPLY_SCHEMAS[kind].safeParse(reply);
    if (!checked.success) throw new GatewayValidationError(toIssues(checked.error), `${kind} reply`);
    return reply;
  } catch (error) {
    controller.abort(error); // whatever failed, the reply is no longer wanted
    if (error instanceof GatewayError) throw error;
    throw new GatewayError(`The ${kind} responder failed: ${(error as Error)?.message ?? String(error)}`, {
      cause: error,
    });
  }
}
