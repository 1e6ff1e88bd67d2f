import type { MessageAdd } from '../../schemas/events-v2.js';
import type { V3Message } from '../../schemas/events-v3.js';

/**
 * Whether a message came from the contact (true) rather than from this account (false): v2
 * `direction === 'inbound'`, v3 `isEcho === false`, or, without `isEcho`, `status === 'inbound'`. Answer only inbound messages: replying to an
 * outbound one (an echo of your own send) is the classic loop that messages a customer forever.
 */
export function isInbound(message: MessageAdd | V3Message): boolean {
  if ('direction' in message) return message.direction === 'inbound';
  return message.isEcho == null ? message.status === 'inbound' : message.isEcho === false;
}

/**
 * Whether a message was sent by this account (an echo of an outbound message): v2
 * `direction === 'outbound'`, v3 `isEcho === true`, or, without `isEcho`, a status of a sent
 * message (`sent`, `delivered`, `read`, `error`).
 */
export function isOutbound(message: MessageAdd | V3Message): boolean {
  if ('direction' in message) return message.direction === 'outbound';
  if (message.isEcho != null) return message.isEcho === true;
  return message.status != null && message.status !== 'inbound';
}
