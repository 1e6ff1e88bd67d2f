// The service's conversation windows and tiers as the fake keeps them (spec: Limits → conversation
// windows, tier; Errors → over_24_hour_limit, messages_not_text_first). Written here again on
// purpose: the fake shares no rule with the SDK's ConversationWindows, so the SDK's guard is
// tested against an independent judge.

/** What the windows read of a channel the fake holds. */
interface WindowChannel {
  channel_id: string;
  transport: string;
  tier: string | null;
}

const HOUR_MS = 3_600_000;

/** spec: Limits — a 24-hour window for wapi, a 7-day window for instagram (transport instAPI). */
const WINDOWS: Record<string, number> = { wapi: 24 * HOUR_MS, instAPI: 7 * 24 * HOUR_MS };

/** spec: WABA tier — 24-hour conversations a wapi channel may start per day. */
const TIERS: Record<string, number> = {
  TIER_0: 250,
  TIER_1K: 1_000,
  TIER_10K: 10_000,
  TIER_100K: 100_000,
};

/** A wapi conversation lasts 24 hours. */
const CONVERSATION_MS = 24 * HOUR_MS;

/** What a chat's window is: the transport's, and when it closes (null: the customer never wrote). */
export interface ChatWindow {
  transport: 'wapi' | 'instAPI';
  closesAt: number | null;
}

/** The chats' last inbound messages and the wapi conversations, as the fake heard and started them. */
export class FakeWindows {
  /** channel id, NUL, chat id → when the customer last wrote (ms). */
  readonly #inbound = new Map<string, number>();
  /** channel id → chat id → when its conversation started (ms), oldest first. */
  readonly #conversations = new Map<string, Map<string, number>>();

  constructor(readonly maxRecords: number) {}

  /** The customer of a chat wrote at `at` (a later message than the known one only). */
  heard(channelId: string, chatId: string, at: number): void {
    const key = `${channelId}\u0000${chatId}`;
    if ((this.#inbound.get(key) ?? -1) >= at) return;
    this.#inbound.delete(key);
    this.#inbound.set(key, at);
    if (this.#inbound.size > this.maxRecords)
      this.#inbound.delete(this.#inbound.keys().next().value as string);
  }

  /** The chat's window, or null for a channel whose transport has none. */
  windowOf(channel: WindowChannel | undefined, chatId: string): ChatWindow | null {
    if (channel?.transport !== 'wapi' && channel?.transport !== 'instAPI') return null;
    const { transport, channel_id } = channel;
    const last = this.#inbound.get(`${channel_id}\u0000${chatId}`);
    return { transport, closesAt: last === undefined ? null : last + (WINDOWS[transport] as number) };
  }

  /**
   * Why the service fails a send it accepted through `channel` to `chatId`, or null: text or a
   * file outside the window (wapi over_24_hour_limit, instagram messages_not_text_first), or a
   * template starting a wapi conversation past the tier (over_24_hour_limit). A template that
   * starts a conversation is counted.
   */
  failureOf(
    channel: WindowChannel,
    chatId: string,
    body: Record<string, unknown>,
    now: number,
  ): string | null {
    const window = this.windowOf(channel, chatId);
    if (!window || (window.closesAt !== null && window.closesAt > now)) return null;
    if (body.template === undefined) {
      return window.transport === 'wapi' ? 'over_24_hour_limit' : 'messages_not_text_first';
    }
    return window.transport === 'wapi' ? this.#start(channel, chatId, now) : null;
  }

  /** Starts a wapi conversation, unless the chat has one; over_24_hour_limit past the tier. */
  #start(channel: WindowChannel, chatId: string, now: number): string | null {
    const started = this.#conversations.get(channel.channel_id) ?? new Map<string, number>();
    this.#conversations.set(channel.channel_id, started);
    for (const [chat, at] of started) {
      if (at > now - CONVERSATION_MS) break;
      started.delete(chat);
    }
    if (started.has(chatId)) return null;
    const cap = channel.tier === null ? undefined : TIERS[channel.tier];
    if (cap !== undefined && started.size >= cap) return 'over_24_hour_limit';
    started.set(chatId, now);
    return null;
  }

  /** Forgets everything. */
  clear(): void {
    this.#inbound.clear();
    this.#conversations.clear();
  }
}
