import { BoundedMap } from '../internal/bounded-map.js';
import { type ChatFacts, CONVERSATION_MS } from './window-rules.js';
import type { ChannelRecord, ConversationStart, WindowStore } from './window-store.js';

/** Options of {@link MemoryWindowStore}. */
export interface MemoryWindowStoreOptions {
  /**
   * Chats whose last inbound message is remembered at most; past it the chat heard from longest
   * ago goes (its window counts as unknown, never as closed, until a whole window has passed).
   * About 100 bytes each. @default 100000
   */
  maxChats?: number;
  /** Channels remembered at most (transport, tier, conversations); the oldest go first. @default 10000 */
  maxChannels?: number;
}

/** What the store holds of one channel. */
interface ChannelState {
  transport: string | undefined;
  tier: string | undefined;
  /** The conversations started within 24 hours (or longer ago, until the next start prunes them): chat → when, oldest first. */
  conversations: Map<string, number>;
}

/**
 * The default {@link WindowStore}: in this process, bounded. Each chat is one entry of one map
 * (its channel and chat ids → the time of its last inbound message). What a process restart
 * forgets is not refused on: the windows count as heard only from when this store started
 * listening.
 */
export class MemoryWindowStore implements WindowStore {
  readonly #chats: BoundedMap<string, number>;
  readonly #channels: BoundedMap<string, ChannelState>;
  readonly #maxChats: number;
  /** The latest last-message time among the chats dropped for room (see ChatFacts.forgottenUntil). */
  #forgottenUntil: number | undefined;
  #listeningSince: number | undefined;

  constructor(options: MemoryWindowStoreOptions = {}) {
    this.#maxChats = options.maxChats ?? 100_000;
    this.#chats = new BoundedMap(this.#maxChats, (_key, at) => {
      this.#forgottenUntil = Math.max(this.#forgottenUntil ?? at, at);
    });
    this.#channels = new BoundedMap(options.maxChannels ?? 10_000);
  }

  /** Chats remembered now. */
  get size(): number {
    return this.#chats.size;
  }

  recordInbound(channelId: string, chatId: string, at: number): void {
    const key = chatKey(channelId, chatId);
    const last = this.#chats.get(key);
    if (last === undefined || at > last) this.#chats.set(key, at);
  }

  recordChannels(channels: readonly ChannelRecord[]): void {
    for (const { channelId, transport, impliedTransport, tier } of channels) {
      const state = this.#channel(channelId);
      state.transport = transport ?? state.transport ?? impliedTransport;
      state.tier = tier ?? state.tier;
    }
  }

  startListening(now: number): void {
    this.#listeningSince ??= now;
  }

  read(channelId: string, chatId: string): ChatFacts {
    const channel = this.#channels.get(channelId);
    return {
      transport: channel?.transport,
      tier: channel?.tier,
      lastInboundAt: this.#chats.get(chatKey(channelId, chatId)),
      conversationAt: channel?.conversations.get(chatId),
      heardSince: this.#listeningSince,
      forgottenUntil: this.#forgottenUntil,
    };
  }

  startConversation(channelId: string, chatId: string, now: number, cap: number | null): ConversationStart {
    const conversations = this.#channel(channelId).conversations;
    prune(conversations, now - CONVERSATION_MS);
    if (conversations.has(chatId)) return { outcome: 'open' };
    if (cap !== null && conversations.size >= cap) return { outcome: 'full' };
    // Bounded as the chats are: past it the oldest start is forgotten (counting fewer never refuses).
    if (conversations.size >= this.#maxChats)
      conversations.delete(conversations.keys().next().value as string);
    conversations.set(chatId, now);
    return { outcome: 'started', at: now };
  }

  cancelConversation(channelId: string, chatId: string, at: number): void {
    const conversations = this.#channels.get(channelId)?.conversations;
    if (conversations?.get(chatId) === at) conversations.delete(chatId);
  }

  conversations(channelId: string, since: number): { count: number; tier: string | undefined } {
    const channel = this.#channels.get(channelId);
    let count = 0;
    for (const at of channel?.conversations.values() ?? []) if (at > since) count++;
    return { count, tier: channel?.tier };
  }

  #channel(channelId: string): ChannelState {
    let state = this.#channels.get(channelId);
    if (!state) {
      state = { transport: undefined, tier: undefined, conversations: new Map() };
      this.#channels.set(channelId, state);
    }
    return state;
  }
}

/** One key per chat of a channel (ids never hold a NUL). */
const chatKey = (channelId: string, chatId: string) => `${channelId}\u0000${chatId}`;

/** Drops the conversations that started at or before `cutoff` (the map is oldest first). */
function prune(conversations: Map<string, number>, cutoff: number): void {
  for (const [chatId, at] of conversations) {
    if (at > cutoff) return;
    conversations.delete(chatId);
  }
}
