import type { Deliverer, DeliveryRecord } from './deliveries.js';
import { isUnregistered, outboundAdd, statusItems, v3Echo } from './payloads.js';
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

/** Delivers one status of a message (v2 message.status_update, v3 statuses) and remembers it. */
export function deliverStatus(
  d: Deliverer,
  m: FakeMessage,
  status: string,
  reason: string | null,
): Promise<DeliveryRecord[]> {
  m.status = status;
  m.reason = reason;
  const items = statusItems(m, status, reason);
  return both(d, 'message.status_update', items.v2, items.v3 && { statuses: [items.v3] });
}

/**
 * The life of an accepted send: message.add, then accepted → sent → delivered → read, or
 * accepted → failed (bad_contact) for an unregistered number. Each delivery is answered before
 * the next step, so a receiver sees them in order.
 */
export async function messageLife(d: Deliverer, m: FakeMessage, autoStatuses: boolean): Promise<void> {
  const epoch = d.epoch;
  await both(d, 'message.add', outboundAdd(m), { messages: [v3Echo(m)] });
  if (!autoStatuses) return;
  const path = isUnregistered(m) ? ['accepted', 'failed'] : ['accepted', 'sent', 'delivered', 'read'];
  for (const status of path) {
    if (!(await d.step(epoch))) return;
    await deliverStatus(d, m, status, status === 'failed' ? 'bad_contact' : null);
  }
}
