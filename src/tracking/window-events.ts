/**
 * What the conversation windows learn from deliveries: each inbound message's chat and time, and
 * each channel's transport and tier.
 * @module
 */
import type { MessageAdd, V2Payload } from '../schemas/events-v2.js';
import type { V3ChannelUpdate, V3Message } from '../schemas/events-v3.js';
import { isInbound } from '../webhooks/decode/guards.js';
import type { ChannelRecord } from './window-store.js';

/** An inbound message as the windows keep it. */
export interface InboundRecord {
  channelId: string;
  chatId: string;
  /** When the customer wrote (ms since the epoch). */
  at: number;
}

/** Below this a Unix time is in seconds (it would be a time in 1973 in milliseconds). */
const SECONDS_BELOW = 1e11;

/**
 * The time a message was written, as the windows count it: its own time when it has one that
 * reads, else `receivedAt`, and never later than `receivedAt` (a clock ahead must not keep a
 * window open).
 */
export function messageTime(own: number | undefined, receivedAt: number): number {
  if (own === undefined || !Number.isFinite(own) || own <= 0) return receivedAt;
  return Math.min(own < SECONDS_BELOW ? own * 1000 : own, receivedAt);
}

/**
 * A v3 `dateTime` (`yyyy-mm-ddThh:mm:ss.ms`, with no zone: read as UTC, as the service's samples
 * and the fake write it) in ms, or undefined when it does not read.
 */
export function v3Time(dateTime: string | undefined | null): number | undefined {
  if (typeof dateTime !== 'string') return undefined;
  const zoned = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(dateTime);
  const ms = Date.parse(zoned ? dateTime : `${dateTime}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The inbound messages of a v2 message.add delivery (echoes of the account's own sends left out). */
export function inboundOfV2(messages: readonly MessageAdd[], receivedAt: number): InboundRecord[] {
  const records: InboundRecord[] = [];
  for (const message of messages) {
    const chatId = message.recipient?.chat_id ?? message.chat_id;
    if (!isInbound(message) || !chatId) continue;
    const at = messageTime(message.timestamp ?? undefined, receivedAt);
    records.push({ channelId: message.channel_id, chatId, at });
  }
  return records;
}

/**
 * The inbound messages of a v3 `messages` delivery: echoes left out, and edits or deletions of
 * earlier messages (the customer wrote nothing new).
 */
export function inboundOfV3(messages: readonly V3Message[], receivedAt: number): InboundRecord[] {
  const records: InboundRecord[] = [];
  for (const message of messages) {
    if (!isInbound(message) || !message.channelId || message.isEdited || message.isDeleted) continue;
    const at = messageTime(v3Time(message.dateTime), receivedAt);
    records.push({ channelId: message.channelId, chatId: message.chatId, at });
  }
  return records;
}

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * A channel's transport and tier from a channel webhook: a tier is given for wapi channels only
 * (spec: channel.waba_tier_update, channelsUpdates), so a tier implies wapi, but only for a
 * channel whose transport nothing stated (the channel resource lists a tier for every channel);
 * a `transport` an item carries beside the spec's fields is read too. Undefined when the item
 * says neither.
 */
function channelRecord(channelId: string, item: Record<string, unknown>): ChannelRecord | undefined {
  const tier = text(item.tier);
  const transport = text(item.transport);
  if (transport !== undefined) return { channelId, transport, tier };
  return tier === undefined ? undefined : { channelId, impliedTransport: 'wapi', tier };
}

/** The channels a v2 channel.status_update or channel.waba_tier_update delivery describes. */
export function channelsOfV2(
  items: readonly (V2Payload<'channel.status_update'> | V2Payload<'channel.waba_tier_update'>)[],
): ChannelRecord[] {
  return items.flatMap((item) => channelRecord(item.channel_id, item as Record<string, unknown>) ?? []);
}

/** The channels a v3 `channelsUpdates` delivery describes. */
export function channelsOfV3(items: readonly V3ChannelUpdate[]): ChannelRecord[] {
  return items.flatMap((item) => channelRecord(item.channelId, item as Record<string, unknown>) ?? []);
}
