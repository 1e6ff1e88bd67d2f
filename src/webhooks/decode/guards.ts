import type { MessageAdd } from '../../schemas/events-v2.js';
import type { V3Message } from '../../schemas/events-v3.js';

/**
 * Whether a message came from the contact (true) rather than from this account (false): v2
 * `direction === 'inbound'`, v3 `isEcho === false`. Answer only inbound messages: replying to an
 * outbound one (an echo of your own send) is the classic loop that messages a customer forever.
 */
export function isInbound(message: MessageAdd | V3Message): boolean {
  return 'direction' in message ? message.direction === 'inbound' : message.isEcho === false;
}

/** Whether a message was sent by this account (an echo of an outbound message). */
export function isOutbound(message: MessageAdd | V3Message): boolean {
  return 'direction' in message ? message.direction === 'outbound' : message.isEcho === true;
}
