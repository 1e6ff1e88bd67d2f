import type { ChatFacts } from './window-rules.js';

export type { ChatFacts } from './window-rules.js';

/** What a {@link WindowStore} learns of a channel: its transport and, for wapi, its tier. */
export interface ChannelRecord {
  channelId: string;
  /** Left out (or undefined) when the answer did not say: the stored one is kept. */
  transport?: string | undefined;
  /**
   * The transport the record implies without stating it (a channel webhook's tier says wapi):
   * kept only when no transport is stored, so it never replaces one a channel answer stated.
   */
  impliedTransport?: string | undefined;
  /** Left out (or undefined) when the answer did not say: the stored one is kept. */
  tier?: string | undefined;
}

/**
 * The outcome of {@link WindowStore.startConversation}: `started` at `at`; `open` when a
 * conversation with the chat started within 24 hours already; `full` when the channel started
 * `cap` conversations within 24 hours.
 */
export type ConversationStart =
  | { outcome: 'started'; at: number }
  | { outcome: 'open' }
  | { outcome: 'full' };

/**
 * Where {@link ConversationWindows} keeps what it heard: each chat's last inbound message, each
 * channel's transport and tier, and the wapi conversations each channel started. The default is
 * in memory, for one process; `redisWindowStore(redis)` and `postgresStore(db).windows` share it
 * across a fleet. Times are ms since the epoch, given by the caller (one clock decides).
 */
export interface WindowStore {
  /** Records that the customer of a chat wrote at `at`; a chat's last message only moves forward. */
  recordInbound(channelId: string, chatId: string, at: number): void | Promise<void>;
  /** Records channels' transports and tiers; what a record leaves out stays as stored. */
  recordChannels(channels: readonly ChannelRecord[]): void | Promise<void>;
  /**
   * Records that every inbound message reaches the store from `now` on (a `ConversationWindows`
   * was attached to a handler), unless an earlier time is recorded.
   */
  startListening(now: number): void | Promise<void>;
  /** What is known of a chat and its channel, in one step. */
  read(channelId: string, chatId: string): ChatFacts | Promise<ChatFacts>;
  /**
   * Starts a wapi conversation of the channel with the chat at `now`, unless one started within
   * 24 hours (`open`) or, with a `cap`, the channel started `cap` within 24 hours (`full`); `null`:
   * no limit. With the memory and Redis stores, instances starting conversations at once never
   * pass the cap together; the PostgreSQL store judges in one statement without a transaction (so
   * that it works through every driver and ORM), and conversations started in the same instant as
   * the last one allowed may pass it (the service then fails those, as it would without a check).
   */
  startConversation(
    channelId: string,
    chatId: string,
    now: number,
    cap: number | null,
  ): ConversationStart | Promise<ConversationStart>;
  /** Gives back the conversation started at `at` (its send never reached the service). */
  cancelConversation(channelId: string, chatId: string, at: number): void | Promise<void>;
  /** The conversations the channel started after `since`, and its tier when known. */
  conversations(
    channelId: string,
    since: number,
  ): { count: number; tier: string | undefined } | Promise<{ count: number; tier: string | undefined }>;
}
