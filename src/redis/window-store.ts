import type { ChatFacts } from '../tracking/window-rules.js';
import { CONVERSATION_MS, LONGEST_WINDOW_MS } from '../tracking/window-rules.js';
import type { ChannelRecord, ConversationStart, WindowStore } from '../tracking/window-store.js';
import { type RedisCallOptions, type RedisClientLike, RedisConnection, script } from './connection.js';
import { hashTag } from './hash-tag.js';
import { LUA } from './lua-sources.js';

/** Options of {@link redisWindowStore}. */
export interface RedisWindowStoreOptions extends RedisCallOptions {
  /** Prefix of the Redis keys. @default 'mgsdk:windows:' */
  prefix?: string;
}

// Three keys per channel, one hash tag (the channel id) so a chat's facts are read in one script
// on a cluster: its transport and tier, its chats' last inbound messages, its wapi conversations
// (src/redis/scripts/windows-*.lua name every key and argument). `<prefix>since` records when an
// instance first listened; it is read on its own and kept once known.
const readScript = script('windows read', LUA['windows-read']);
const inboundScript = script('windows inbound', LUA['windows-inbound']);
const startScript = script('windows start', LUA['windows-start']);
const cancelScript = script('windows cancel', LUA['windows-cancel']);
const conversationsScript = script('windows conversations', LUA['windows-conversations']);

/** How long an unset `since` is taken as unset before Redis is asked again (ms). */
const SINCE_RECHECK_MS = 10_000;
/** A chat's last message is kept a day past the longest window (ms). */
const INBOUND_KEPT_MS = LONGEST_WINDOW_MS + CONVERSATION_MS;

const numberOf = (value: unknown): number | undefined => {
  if (value === null || value === undefined || value === false) return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
};
const textOf = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** A WindowStore on Redis; see {@link redisWindowStore}. */
export class RedisWindowStore implements WindowStore {
  readonly prefix: string;
  readonly #redis: RedisConnection;
  #since: number | undefined;
  #sinceAskedAt = Number.NEGATIVE_INFINITY;

  constructor(redis: RedisClientLike, options: RedisWindowStoreOptions = {}) {
    this.prefix = options.prefix ?? 'mgsdk:windows:';
    this.#redis = new RedisConnection(redis, options);
  }

  /** The keys of a channel: transport and tier, last inbound messages, conversations. */
  keysOf(channelId: string): [channel: string, inbound: string, started: string] {
    const base = `${this.prefix}${hashTag(channelId)}`;
    return [`${base}:channel`, `${base}:inbound`, `${base}:started`];
  }

  async recordInbound(channelId: string, chatId: string, at: number): Promise<void> {
    const args = [chatId, Math.round(at), Date.now() - INBOUND_KEPT_MS, INBOUND_KEPT_MS];
    await this.#redis.eval(inboundScript, [this.keysOf(channelId)[1]], args);
  }

  async recordChannels(channels: readonly ChannelRecord[]): Promise<void> {
    await Promise.all(
      channels.map(async ({ channelId, transport, impliedTransport, tier }) => {
        const key = this.keysOf(channelId)[0];
        const fields = [...(transport ? ['transport', transport] : []), ...(tier ? ['tier', tier] : [])];
        if (fields.length > 0) await this.#redis.command('windows channel', ['HSET', key, ...fields]);
        // Only where no transport is stored: a stated one is never replaced by what a tier implies.
        if (!transport && impliedTransport) {
          await this.#redis.command('windows channel', ['HSETNX', key, 'transport', impliedTransport]);
        }
      }),
    );
  }

  async startListening(now: number): Promise<void> {
    await this.#redis.command('windows since', ['SET', `${this.prefix}since`, Math.round(now), 'NX']);
    this.#sinceAskedAt = Number.NEGATIVE_INFINITY; // read again: it is set now, by this instance or another
  }

  async read(channelId: string, chatId: string): Promise<ChatFacts> {
    const [heardSince, reply] = await Promise.all([
      this.#heardSince(),
      this.#redis.eval(readScript, this.keysOf(channelId), [chatId]) as Promise<unknown[]>,
    ]);
    return {
      transport: textOf(reply[0]),
      tier: textOf(reply[1]),
      lastInboundAt: numberOf(reply[2]),
      conversationAt: numberOf(reply[3]),
      heardSince,
    };
  }

  async startConversation(
    channelId: string,
    chatId: string,
    now: number,
    cap: number | null,
  ): Promise<ConversationStart> {
    const at = Math.round(now);
    const started = this.keysOf(channelId).slice(2);
    // A start whose answer never came may still run late: giving it back takes it back.
    const outcome = await this.#redis.evalOrUndo(
      startScript,
      started,
      [chatId, at, CONVERSATION_MS, cap ?? -1],
      {
        script: cancelScript,
        keys: started,
        args: [chatId, at],
      },
    );
    return outcome === 'started' ? { outcome, at } : { outcome: outcome === 'full' ? 'full' : 'open' };
  }

  async cancelConversation(channelId: string, chatId: string, at: number): Promise<void> {
    await this.#redis.eval(cancelScript, this.keysOf(channelId).slice(2), [chatId, Math.round(at)]);
  }

  async conversations(
    channelId: string,
    since: number,
  ): Promise<{ count: number; tier: string | undefined }> {
    const [channel, , started] = this.keysOf(channelId);
    const reply = (await this.#redis.eval(
      conversationsScript,
      [channel, started],
      [Math.round(since)],
    )) as unknown[];
    return { count: numberOf(reply[0]) ?? 0, tier: textOf(reply[1]) };
  }

  /** When an instance first listened: asked once, kept once known (it never changes). */
  async #heardSince(): Promise<number | undefined> {
    if (this.#since !== undefined || Date.now() - this.#sinceAskedAt < SINCE_RECHECK_MS) return this.#since;
    this.#sinceAskedAt = Date.now();
    this.#since = numberOf(await this.#redis.command('windows since', ['GET', `${this.prefix}since`]));
    return this.#since;
  }
}

/**
 * Conversation windows shared by a fleet: what any instance heard (each chat's last inbound
 * message, each channel's transport and tier, the wapi conversations each channel started) is in
 * Redis, so a send on any instance is judged by it, and a restart loses nothing. A chat's check
 * is one round trip; the three keys of a channel share its hash tag, so a Redis Cluster works as
 * a single server does. Chats silent for longer than the longest window (7 days) are forgotten.
 * @example
 * ```ts
 * import Redis from 'ioredis';
 * import { ConversationWindows, GatewayClient } from 'messaging-gateway-sdk';
 * import { redisWindowStore } from 'messaging-gateway-sdk/redis';
 *
 * const redis = new Redis(process.env.REDIS_URL).on('error', (error) => console.warn('redis', error.message));
 * const windows = new ConversationWindows({ store: redisWindowStore(redis) }).attach(hooks);
 * const client = new GatewayClient({ windows });
 * ```
 */
export function redisWindowStore(
  redis: RedisClientLike,
  options?: RedisWindowStoreOptions,
): RedisWindowStore {
  return new RedisWindowStore(redis, options);
}
