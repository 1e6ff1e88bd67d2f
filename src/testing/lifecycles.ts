import type { Deliverer, DeliveryRecord } from './deliveries.js';
import { isUnregistered, outboundAdd, statusItems, v3Echo } from './payloads.js';
import { textTooLong } from './service-rules.js';
import type { FakeMessage } from './state.js';

/** A v2 delivery and its v3 twin, made together. */
async function both(
  d: Deliverer,
  event: string,
  v2: unknown,
  v3?: Record<string, unknown>,
): Promise<DeliveryRecord[]> {
  const made = await Promise.all([d.v2(event, [v2]), v3 ? d.send(v3) : []]);
  return made.flat();
}

// spec: Outbound message status — accepted → sent → delivered → read, or → failed from any but read
const ORDER = ['accepted', 'sent', 'delivered', 'read'];

/** True when `to` may follow `from`: the same status again, or a later one; none after read or failed. */
export function movesForward(from: string, to: string): boolean {
  if (from === to) return true;
  if (from === 'read' || from === 'failed') return false;
  return to === 'failed' || ORDER.indexOf(to) > ORDER.indexOf(from);
}

/**
 * Delivers one status of a message (v2 message.status_update, v3 statuses) and remembers it.
 * Rejects a status that would move the message backwards (delivered after read).
 */
export async function deliverStatus(
  d: Deliverer,
  m: FakeMessage,
  status: string,
  reason: string | null,
): Promise<DeliveryRecord[]> {
  if (!movesForward(m.status, status)) {
    throw new Error(`a status never moves backwards: the message is ${m.status}, not before ${status}`);
  }
  m.status = status;
  m.reason = reason;
  const items = statusItems(m, status, reason);
  return both(d, 'message.status_update', items.v2, items.v3 && { statuses: [items.v3] });
}

/**
 * Why the service itself fails a send it accepted, or null: a text over its limit, or outside the
 * chat's conversation window or the wapi tier (decided when it was accepted).
 */
function serviceFailure(m: FakeMessage): string | null {
  if (textTooLong(m.body)) return 'text_length_is_too_much';
  return m.failsWith ?? null;
}

/**
 * The life of an accepted send: message.add, then accepted → sent → delivered → read, or
 * accepted → failed for what the service decides (even with autoStatuses off): a text over its
 * limit (text_length_is_too_much), a send outside the chat's conversation window
 * (over_24_hour_limit for wapi, messages_not_text_first for instagram) or a wapi conversation
 * past the tier (over_24_hour_limit); or, with autoStatuses, for an unregistered number
 * (bad_contact). Each delivery is answered before the next step, so a receiver sees them in
 * order. A status set meanwhile by `simulate.status` ends it where that status is ahead.
 */
export async function messageLife(d: Deliverer, m: FakeMessage, autoStatuses: boolean): Promise<void> {
  const epoch = d.epoch;
  await both(d, 'message.add', outboundAdd(m), { messages: [v3Echo(m)] });
  const decided = serviceFailure(m);
  const failure = decided ?? (isUnregistered(m) ? 'bad_contact' : null);
  if (!autoStatuses && decided === null) return;
  const path = failure ? ['accepted', 'failed'] : ['accepted', 'sent', 'delivered', 'read'];
  for (const status of path) {
    if (!(await d.step(epoch)) || !movesForward(m.status, status)) return;
    await deliverStatus(d, m, status, status === 'failed' ? failure : null);
  }
}

/** message.edit of an accepted edit (spec: message.edit): the new and the old text or attachment. */
export function deliverEdit(d: Deliverer, m: FakeMessage, old: Record<string, unknown>) {
  const { text, attachment, crm_user_id } = m.body;
  return d.v2('message.edit', [
    {
      message_id: m.message_id,
      crm_user_id: crm_user_id ?? null,
      timestamp: Date.now(),
      ...(text !== undefined && { text, old_text: old.text }),
      ...(attachment !== undefined && { attachment, old_attachment: old.attachment }),
    },
  ]);
}

/** message.delete of a deleted message (spec: message.delete). */
export function deliverDelete(d: Deliverer, m: FakeMessage) {
  const item = { message_id: m.message_id, crm_user_id: m.body.crm_user_id ?? null, timestamp: Date.now() };
  return d.v2('message.delete', [item]);
}
