import { checkCount } from '../core/checks.js';
import { ConversationWindowError, GatewayApiError, GatewayError } from '../core/errors.js';
import type { ChannelFacts, WindowGuard } from '../core/options.js';
import { BoundedMap } from '../internal/bounded-map.js';
import { ConsoleReporter } from '../internal/console-reporter.js';
import { messageOf } from '../internal/message-of.js';
import type { V2WebhookOf } from '../schemas/events-v2.js';
import type { SendMessageParams } from '../schemas/messages.js';
import type { V3WebhookOf } from '../webhooks/receive/events.js';
import type { WebhookHandler } from '../webhooks/receive/handler.js';
import { MemoryWindowStore } from './memory-window-store.js';
import { channelsOfV2, channelsOfV3, type InboundRecord, inboundOfV2, inboundOfV3 } from './window-events.js';
import { type ChatFacts, CONVERSATION_MS, capOf, isOpen, judge, windowOf } from './window-rules.js';
import type { ChannelRecord, WindowStore } from './window-store.js';

/** Options of {@link ConversationWindows}. */
export interface ConversationWindowsOptions {
  /**
   * Where what was heard is kept. The default is in memory, for one process (bounded); a fleet
   * shares `redisWindowStore(redis)` (from `messaging-gateway-sdk/redis`) or `store.windows` of
   * `postgresStore(db)`, so a send on any instance is judged by what any instance heard, and a
   * restart loses nothing.
   */
  store?: WindowStore;
  /**
   * Since when every inbound message reached the store (ms since the epoch). A chat of which no
   * message is known counts as closed only once a whole window (24 hours for wapi, 7 days for
   * instagram) has passed since then: until then it is not refused, as its customer may have
   * written before anything listened. By default, when the store was first attached to a handler
   * (a shared store remembers it). Give an earlier time when you filled the store yourself
   * (`observeInbound` from your own messages), or `0` in tests.
   */
  heardSince?: number;
  /**
   * Called with each failure that has no caller to reject: the store failed to keep the channels
   * a client read, or to record when listening started.
   * @default a console warning, at most 10 lines a minute
   */
  onError?: (error: GatewayError) => void;
}

/**
 * What a CRM's own screen shows of a chat: `open` tells whether text or a file is let through now
 * (also when nothing can tell: a channel whose transport is not known, or a chat not heard for a
 * whole window yet; `closesAt` is then absent).
 */
export interface ConversationWindow {
  /** The channel's transport, when known (`wapi`, `instAPI`, …). */
  transport: string | undefined;
  /** Whether a send of text or a file to the chat is let through now. */
  open: boolean;
  /** When the customer last wrote (ms since the epoch), when known. */
  lastInboundAt?: number;
  /** When the window closes (ms since the epoch), while it is known to be open. */
  closesAt?: number;
}

/** The conversations a wapi channel started in the last 24 hours, and what its tier allows. */
export interface ConversationCount {
  /** Conversations started in the last 24 hours (templates to chats whose window was closed). */
  count: number;
  /** The channel's tier, when known (`TIER_0`, `TIER_1K`, …). */
  tier: string | undefined;
  /** Conversations the tier allows in 24 hours; `null` for no limit, or a tier whose limit is not known. */
  cap: number | null;
}

/** Where a send goes, as the windows judge it; undefined for a send they do not judge. */
interface Target {
  channelId: string;
  chatId: string;
  template: boolean;
}

function targetOf(params: SendMessageParams): Target | undefined {
  const { channel_id: channelId, recipient } = (params ?? {}) as Partial<SendMessageParams>;
  const chatId = recipient?.chat_id;
  if (typeof channelId !== 'string' || typeof chatId !== 'string' || chatId === '') return undefined;
  if (params.template !== undefined) return { channelId, chatId, template: true };
  return params.text !== undefined || params.attachment !== undefined
    ? { channelId, chatId, template: false }
    : undefined;
}

/** True when a failed send surely never started a conversation: it never left, or the service refused it. */
const neverTaken = (error: unknown) =>
  (error instanceof GatewayError && !error.requestSent) ||
  (error instanceof GatewayApiError && error.status < 500);

/**
 * The service's conversation windows, kept from what the handler hears, so that a send the service
 * would accept and then fail is refused before it leaves: text or a file to a wapi chat whose
 * customer has not written in 24 hours (7 days for instagram), or a template that would start a
 * wapi conversation past the channel's tier (TIER_0: 250 a day). A template opens a wapi
 * conversation and is never refused by the window. A channel whose transport is not known is
 * not checked: the windows learn transports and tiers from the channels a client reads
 * (`channels.list`, `get`) and from channel webhooks.
 * @example
 * ```ts
 * const windows = new ConversationWindows().attach(hooks);
 * const client = new GatewayClient({ windows });
 * await client.channels.list(); // the transports and tiers of the account's channels
 * const window = await windows.get(channelId, '79001234567'); // { transport: 'wapi', open: true, closesAt, … }
 * ```
 */
export class ConversationWindows implements WindowGuard {
  readonly #store: WindowStore;
  readonly #heardSince: number | undefined;
  readonly #onError: (error: GatewayError) => void;
  /** Transports known in this process: a channel's never changes, so a send to a channel without windows asks no store. */
  readonly #transports = new BoundedMap<string, string>(10_000);
  #detach: (() => void) | undefined;
  /** When this process listened again after a detach: what came in between was never heard. */
  #resumedAt: number | undefined;
  #detachedOnce = false;

  constructor(options: ConversationWindowsOptions = {}) {
    this.#store = options.store ?? new MemoryWindowStore();
    const { heardSince } = options;
    this.#heardSince =
      heardSince === undefined
        ? undefined
        : checkCount(heardSince, ['heardSince'], 'ConversationWindows options', 0);
    const reporter = new ConsoleReporter(
      (line) => console.warn(line),
      'pass onError to ConversationWindows to see every one',
    );
    this.#onError =
      options.onError ?? ((error) => reporter.report(`[messaging-gateway-sdk] ${error.message}`));
  }

  /**
   * Listens to a handler: inbound messages (v2 message.add, v3 `messages`; echoes of the account's
   * own sends never open a window) and channel webhooks (channel.status_update,
   * channel.waba_tier_update, v3 `channelsUpdates`). With a shared store, a delivery whose message
   * could not be stored fails its listener, so it is not lost (the service sends it again under
   * `dispatch: 'await'` or the PostgreSQL inbox). Returns the windows, for chaining.
   */
  attach(handler: WebhookHandler): this {
    if (this.#detach === undefined && this.#detachedOnce) this.#resumedAt = Date.now();
    this.detach();
    const now = () => Date.now();
    const inboundV2 = (event: V2WebhookOf<'message.add'>) => this.#inbound(inboundOfV2(event.data, now()));
    const inboundV3 = (event: V3WebhookOf<'messagesAndStatuses'>) =>
      this.#inbound(inboundOfV3(event.messages, now()));
    const status = (event: V2WebhookOf<'channel.status_update'>) => this.#channels(channelsOfV2(event.data));
    const tier = (event: V2WebhookOf<'channel.waba_tier_update'>) => this.#channels(channelsOfV2(event.data));
    const v3Channels = (event: V3WebhookOf<'channelsUpdates'>) =>
      this.#channels(channelsOfV3(event.channelsUpdates));
    handler.on('message.add', inboundV2);
    handler.on('v3.messagesAndStatuses', inboundV3);
    handler.on('channel.status_update', status);
    handler.on('channel.waba_tier_update', tier);
    handler.on('v3.channelsUpdates', v3Channels);
    this.#detach = () => {
      handler.off('message.add', inboundV2);
      handler.off('v3.messagesAndStatuses', inboundV3);
      handler.off('channel.status_update', status);
      handler.off('channel.waba_tier_update', tier);
      handler.off('v3.channelsUpdates', v3Channels);
    };
    void this.#report(() => this.#store.startListening(now()), 'record when listening started');
    return this;
  }

  /**
   * Stops listening to the attached handler. Attached again later, the windows refuse no chat on
   * what they did not hear meanwhile: until a whole window has passed since, a chat of which
   * nothing is known is not refused.
   */
  detach(): void {
    if (this.#detach) this.#detachedOnce = true;
    this.#detach?.();
    this.#detach = undefined;
  }

  /**
   * Records that the customer of a chat wrote at `at` (ms since the epoch; default now), as an
   * attached handler does for each inbound message: for messages heard elsewhere, or to fill a new
   * store from your own records (then give `heardSince`). A later message than the known one only.
   * Rejects with a `GatewayValidationError` naming `at` when it is not a whole number of ms >= 0.
   */
  async observeInbound(channelId: string, chatId: string, at: number = Date.now()): Promise<void> {
    // A time that is not one would stay a chat's last message for ever (no later one compares as later).
    checkCount(at, ['at'], 'observeInbound', 0);
    await this.#store.recordInbound(channelId, chatId, Math.min(at, Date.now()));
  }

  /**
   * Learns channels' transports and tiers (the client calls it with every channel it reads).
   * Never rejects: a store that fails is reported on `onError`.
   */
  async learnChannels(channels: readonly ChannelFacts[]): Promise<void> {
    const records: ChannelRecord[] = [];
    for (const { channel_id, transport, tier } of channels) {
      if (typeof channel_id !== 'string' || channel_id === '') continue;
      if (transport) this.#transports.set(channel_id, transport);
      records.push({ channelId: channel_id, transport: transport ?? undefined, tier: tier ?? undefined });
    }
    if (records.length > 0) await this.#report(() => this.#store.recordChannels(records), 'keep channels');
  }

  /**
   * A chat's window as it stands now, for a CRM's own screen ("the window closes in 3 h").
   * @example
   * ```ts
   * const { open, closesAt } = await windows.get(channelId, chatId);
   * const label = open && closesAt ? `closes in ${Math.round((closesAt - Date.now()) / 3_600_000)} h` : open ? 'open' : 'send a template';
   * ```
   */
  async get(channelId: string, chatId: string): Promise<ConversationWindow> {
    const facts = await this.#store.read(channelId, chatId);
    const { transport, lastInboundAt } = facts;
    const open = isOpen(facts, this.#since(facts), Date.now());
    const windowMs = windowOf(transport);
    return {
      transport,
      open: open !== false,
      ...(lastInboundAt !== undefined && { lastInboundAt }),
      ...(open === true && windowMs !== undefined && { closesAt: (lastInboundAt as number) + windowMs }),
    };
  }

  /** The conversations a wapi channel started in the last 24 hours, and its tier's limit. */
  async conversationsToday(channelId: string): Promise<ConversationCount> {
    const { count, tier } = await this.#store.conversations(channelId, Date.now() - CONVERSATION_MS);
    return { count, tier, cap: capOf(tier) };
  }

  /**
   * Judges a send before it leaves (`GatewayClient({ windows })` calls it): rejects with a
   * `ConversationWindowError` when it must not leave, and with a retryable `GatewayError`
   * (`requestSent: false`) when the store cannot be read. A wapi template to a chat whose window is
   * closed starts a conversation (counted against the tier): it resolves to a function that gives
   * it back when called with the send's error, if the service never took the send.
   */
  async beforeSend(params: SendMessageParams): Promise<((error: unknown) => void) | undefined> {
    const target = targetOf(params);
    if (!target) return undefined;
    const known = this.#transports.get(target.channelId);
    if (known !== undefined && windowOf(known) === undefined) return undefined;
    const read = this.#ask('read the window', () => this.#store.read(target.channelId, target.chatId));
    const facts = isPromise(read) ? await read : read;
    if (facts.transport) this.#transports.set(target.channelId, facts.transport);
    const now = Date.now();
    const verdict = judge(facts, target.template, this.#since(facts), now);
    if (verdict === 'pass') return undefined;
    if (verdict === 'window') throw this.#refusal('window', target, facts);
    return this.#start(target, facts, now);
  }

  /** Starts the conversation a template opens, unless the tier is spent; its give-back. */
  async #start(target: Target, facts: ChatFacts, now: number) {
    const { channelId, chatId } = target;
    const cap = capOf(facts.tier);
    const started = await this.#ask('count the conversation', () =>
      this.#store.startConversation(channelId, chatId, now, cap),
    );
    if (started.outcome === 'full') throw this.#refusal('tier', target, facts);
    if (started.outcome === 'open') return undefined;
    return (error: unknown) => {
      if (neverTaken(error)) {
        this.#report(
          () => this.#store.cancelConversation(channelId, chatId, started.at),
          'give back a conversation',
        );
      }
    };
  }

  #refusal(code: 'window' | 'tier', target: Target, facts: ChatFacts): ConversationWindowError {
    const last = facts.lastInboundAt;
    const windowMs = windowOf(facts.transport) ?? 0;
    const tier = facts.tier;
    const cap = capOf(tier);
    return new ConversationWindowError({
      code,
      transport: facts.transport ?? '',
      channelId: target.channelId,
      chatId: target.chatId,
      lastInboundAt: last,
      closedAt: last === undefined ? undefined : last + windowMs,
      tier: tier !== undefined && cap !== null ? { name: tier, cap } : undefined,
    });
  }

  /**
   * Since when the windows know every message: what was heard, less what the store dropped and
   * what came while this process was detached.
   */
  #since(facts: ChatFacts): number | undefined {
    const since = this.#heardSince ?? facts.heardSince;
    if (since === undefined) return undefined;
    return Math.max(since, facts.forgottenUntil ?? since, this.#resumedAt ?? since);
  }

  /** Records inbound messages; a promise (for the listener to return) when the store is shared. */
  #inbound(records: InboundRecord[]): Promise<unknown> | undefined {
    const pending = records
      .map((r) => this.#store.recordInbound(r.channelId, r.chatId, r.at))
      .filter(isPromise);
    return pending.length > 0 ? Promise.all(pending) : undefined;
  }

  #channels(records: ChannelRecord[]): void | Promise<void> {
    for (const r of records) if (r.transport) this.#transports.set(r.channelId, r.transport);
    return records.length > 0 ? this.#store.recordChannels(records) : undefined;
  }

  /**
   * A store call a send waits on: its failure is the send's, which never left. A store that
   * answers at once (the memory store) is answered without a promise: the check before every send
   * stays a few map reads.
   */
  #ask<T>(what: string, call: () => T | Promise<T>): T | Promise<T> {
    try {
      const answer = call();
      return isPromise(answer)
        ? answer.catch((error: unknown) => Promise.reject(notSent(what, error)))
        : answer;
    } catch (error) {
      throw notSent(what, error);
    }
  }

  /** A store call nobody waits on: its failure goes to `onError`. */
  async #report(call: () => unknown, what: string): Promise<void> {
    try {
      await call();
    } catch (error) {
      const failure = new GatewayError(`ConversationWindows: could not ${what}: ${messageOf(error)}`, {
        cause: error,
      });
      try {
        this.#onError(failure);
      } catch {
        // a throwing onError must not fail the call that reported
      }
    }
  }
}

/** A send's failure because the store could not `what`: never left, retryable. */
function notSent(what: string, error: unknown): GatewayError {
  return new GatewayError(`Not sent: the conversation windows could not ${what}: ${messageOf(error)}`, {
    cause: error,
    retryable: true,
    requestSent: false,
  });
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as Promise<T> | undefined)?.then === 'function';
}
