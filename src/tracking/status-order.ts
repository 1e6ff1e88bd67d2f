/** The order of a message's statuses (spec: States → Outbound message status). */
export const DELIVERY_ORDER = ['accepted', 'sent', 'delivered', 'read'] as const;
/** A status `waitFor` can wait for. */
export type FinalStatus = (typeof DELIVERY_ORDER)[number];
/** Any status of an outbound message. */
export type DeliveryStatus = FinalStatus | 'failed';

/** Position in the order; -1 for failed and for values the spec does not list. */
export function rankOf(status: string | null | undefined): number {
  return DELIVERY_ORDER.indexOf(status as FinalStatus);
}
