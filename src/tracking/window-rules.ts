/**
 * The service's conversation windows and tiers (spec: Limits → conversation windows, tier; States
 * → WABA tier), and the one function that judges a send against what a store knows.
 * @module
 */

const HOUR_MS = 3_600_000;

/** A wapi conversation, and a wapi chat's window, last 24 hours. */
export const CONVERSATION_MS = 24 * HOUR_MS;

/** How long a chat's window stays open after the customer's last message, by transport (lower case). */
const WINDOW_MS: Readonly<Record<string, number>> = { wapi: CONVERSATION_MS, instapi: 7 * 24 * HOUR_MS };

/** The longest window of any transport: what a store keeps of a chat's last message at least. */
export const LONGEST_WINDOW_MS = 7 * 24 * HOUR_MS;

/**
 * Conversations a wapi channel may start in 24 hours, by tier (spec: WABA tier); `null` for no
 * limit. TIER_50 and TIER_250, listed by the channel resource without a number, are not here: a
 * tier whose limit the spec does not state is not checked.
 */
const TIER_CAPS: Readonly<Record<string, number | null>> = {
  TIER_0: 250,
  TIER_1K: 1_000,
  TIER_10K: 10_000,
  TIER_100K: 100_000,
  TIER_UNLIMITED: null,
};

/** The window of a transport (ms), or undefined for a transport without one (or not known). */
export function windowOf(transport: string | undefined): number | undefined {
  return transport === undefined ? undefined : WINDOW_MS[transport.toLowerCase()];
}

/** True for a wapi channel: its templates start conversations, counted against its tier. */
export function isWapi(transport: string | undefined): boolean {
  return transport?.toLowerCase() === 'wapi';
}

/** The conversations a tier allows in 24 hours: a number, `null` for none or an unknown tier. */
export function capOf(tier: string | undefined): number | null {
  const cap = tier === undefined ? undefined : TIER_CAPS[tier.toUpperCase()];
  return cap ?? null;
}

/** What a store knows of one chat and its channel, read in one step before a send. */
export interface ChatFacts {
  /** The channel's transport, when known. */
  transport: string | undefined;
  /** The channel's tier (wapi), when known. */
  tier: string | undefined;
  /** When the customer last wrote (ms since the epoch), when known. */
  lastInboundAt: number | undefined;
  /** When the channel last started a conversation with this chat (ms), when known. */
  conversationAt: number | undefined;
  /**
   * Since when every inbound message reached the store (ms); undefined while nothing listens. A
   * chat with no message known is closed only once a whole window has passed since then.
   */
  heardSince: number | undefined;
  /**
   * The latest last-message time among chats the store dropped for room (a bounded store): the
   * window of a chat not known is not known before it either. Undefined when it dropped none.
   */
  forgottenUntil?: number | undefined;
}

/**
 * What becomes of a send: `pass` it; refuse it (`window`); or, for a wapi template to a chat whose
 * window is closed and with no conversation of the last 24 hours, `start` a conversation.
 */
export type Verdict = 'pass' | 'window' | 'start';

/** Whether the chat's window is open now: `true`, `false`, or `undefined` when nothing can tell. */
export function isOpen(facts: ChatFacts, heardSince: number | undefined, now: number): boolean | undefined {
  const windowMs = windowOf(facts.transport);
  if (windowMs === undefined) return undefined;
  const last = facts.lastInboundAt;
  if (last !== undefined && last > now - windowMs) return true;
  // Closed only when the store heard every message of the whole window: never on a guess.
  return heardSince !== undefined && heardSince <= now - windowMs ? false : undefined;
}

/** The verdict on a send of text or a file (`template` false) or a template, at `now`. */
export function judge(
  facts: ChatFacts,
  template: boolean,
  heardSince: number | undefined,
  now: number,
): Verdict {
  if (isOpen(facts, heardSince, now) !== false) return 'pass';
  if (!template) return 'window';
  if (!isWapi(facts.transport)) return 'pass';
  const conversation = facts.conversationAt;
  return conversation !== undefined && conversation > now - CONVERSATION_MS ? 'pass' : 'start';
}
