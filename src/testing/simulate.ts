import { randomUUID } from 'node:crypto';
import type { MESSAGE_STATUSES } from '../schemas/events-v2.js';
import type { Lenient } from '../schemas/lenient.js';
import { setChannelStatus } from './channel-life.js';
import type { Deliverer, DeliveryRecord } from './deliveries.js';
import { deliverStatus } from './lifecycles.js';
import { type InboundMessage, inboundItems } from './payloads.js';
import type { FakeState } from './state.js';

/** Events the fake gateway can be told to deliver, as the service would. */
export interface FakeGatewaySimulate {
  /**
   * A message from a contact: a v2 message.add (direction inbound) to the subscribers of
   * message.add, and a v3 `messages` delivery when the v3 switch is on. It opens the chat's
   * conversation window at its `timestamp` (wapi 24 hours, instagram 7 days): the fake fails text
   * or a file sent to a wapi or instagram chat outside it.
   * @returns the deliveries made, once each was answered
   */
  inbound(message: InboundMessage): Promise<DeliveryRecord[]>;
  /**
   * A status of a message sent through the fake: a v2 message.status_update (and a v3 `statuses`
   * delivery when the v3 switch is on). Rejects when no send returned `requestId`.
   * @param reason for `failed`; @default 'unknown_error' for failed, else null
   */
  status(
    requestId: string,
    status: Lenient<(typeof MESSAGE_STATUSES)[number]>,
    reason?: string | null,
  ): Promise<DeliveryRecord[]>;
  /**
   * Any delivery body, e.g. one from `buildWebhook`: a v2 body goes to the subscribers of its
   * `event`, a v3 body to the v3 address when its switch is on.
   */
  deliver(body: object): Promise<DeliveryRecord[]>;
  /**
   * The customer scans the channel's QR (or opens the wapi link): the channel goes active; with
   * `password` to init / wait_for_password until `submit2fa` sends that code (a wrong one is
   * refused); with `foreignPhone` to disabled / foreignphone (another phone scanned it).
   * Rejects when the channel is unknown or not waiting for a scan.
   */
  scan(channelId: string, options?: { password?: string; foreignPhone?: boolean }): Promise<DeliveryRecord[]>;
  /**
   * Any status of a channel, delivered as the service would (v2 channel.status_update and its v3
   * twin), e.g. `('disabled', 'openelsewhere')`. Rejects when the channel is unknown.
   */
  channelStatus(
    channelId: string,
    status: 'active' | 'init' | 'disabled',
    reason?: string | null,
  ): Promise<DeliveryRecord[]>;
}

/** The `simulate` part of a fake gateway. */
export function simulator(state: FakeState, deliverer: Deliverer): FakeGatewaySimulate {
  return {
    async inbound(message) {
      const message_id = message.message_id ?? randomUUID();
      const { channel_id, chat_id, chat_type = 'whatsapp', text = '' } = message;
      const timestamp = message.timestamp ?? Date.now();
      if (typeof timestamp !== 'number' || !Number.isFinite(timestamp)) {
        throw new TypeError('simulate.inbound: timestamp must be ms since the epoch');
      }
      state.addReceived({ message_id, channel_id, chat_id, chat_type, text, receivedAt: timestamp });
      state.windows.heard(channel_id, chat_id, timestamp);
      const items = inboundItems({ ...message, message_id, timestamp });
      const made = await Promise.all([
        deliverer.v2('message.add', [items.v2]),
        deliverer.send({ messages: [items.v3] }),
      ]);
      return made.flat();
    },
    async status(requestId, status, reason) {
      const message = state.messageByRequest(requestId);
      if (!message) throw new Error(`simulate.status: no message sent through this fake has that request_id`);
      const why = reason !== undefined ? reason : status === 'failed' ? 'unknown_error' : null;
      return deliverStatus(deliverer, message, status, why);
    },
    async scan(channelId, options = {}) {
      const channel = state.channels.get(channelId);
      if (!channel) throw new Error('simulate.scan: no channel of this fake has that id');
      if (channel.status !== 'init' || (channel.reason !== 'qr' && channel.reason !== null)) {
        throw new Error(
          `simulate.scan: the channel is not waiting for a scan (${channel.status}/${channel.reason})`,
        );
      }
      state.timers.clear(channelId);
      if (options.foreignPhone) return setChannelStatus(deliverer, channel, 'disabled', 'foreignphone');
      if (options.password !== undefined) {
        channel.password = options.password;
        return setChannelStatus(deliverer, channel, 'init', 'wait_for_password');
      }
      return setChannelStatus(deliverer, channel, 'active', null);
    },
    async channelStatus(channelId, status, reason = null) {
      const channel = state.channels.get(channelId);
      if (!channel) throw new Error('simulate.channelStatus: no channel of this fake has that id');
      state.timers.clear(channelId);
      return setChannelStatus(deliverer, channel, status, reason);
    },
    async deliver(body) {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new TypeError('simulate.deliver: the body must be an object');
      }
      return deliverer.send(body as Record<string, unknown>);
    },
  };
}
