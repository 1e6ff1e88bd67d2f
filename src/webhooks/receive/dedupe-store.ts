import { BoundedMap } from '../../internal/bounded-map.js';
/**
 * What a {@link DedupeStore} says of a key when a delivery claims it.
 * - `claimed`: nobody holds it; the caller holds it now, for the lease, and goes ahead. A store may
 *   name the claim with a `token`, which the handler gives back to `complete` and `release`.
 *   `reply` is the CRM reply an earlier attempt kept ({@link DedupeStore.keepReply}) before its
 *   dispatch failed: the handler answers with it and does not run the responder again.
 * - `processing`: another delivery with this key is being processed (its lease is alive).
 * - `done`: processed already; `reply` is the CRM reply stored with it, if there was one.
 */
export type ClaimResult =
  | { state: 'claimed'; token?: string; reply?: unknown }
  | { state: 'processing' }
  | { state: 'done'; reply?: unknown };

/**
 * Where the handler keeps idempotency keys, in three states: claimed for a lease, done
 * (remembering a CRM reply), or forgotten (a forgotten key may still remember a CRM reply kept
 * with {@link DedupeStore.keepReply}). Share one store across a fleet of servers so that a
 * delivery is processed by exactly one of them however many receive it (`redisDedupeStore` of
 * `messaging-gateway-sdk/redis` is one).
 *
 * A claim whose holder died expires with its lease, so the service's next attempt is processed.
 * A CRM responder runs at most once per key: its reply is kept as soon as it returns, before any
 * listener runs, and every later claim of the key gets it.
 */
export interface DedupeStore {
  /** Atomically claims `key` for `leaseMs` unless it is held or done; says which. */
  claim(key: string, leaseMs: number): ClaimResult | Promise<ClaimResult>;
  /**
   * Keeps the CRM reply of `key` for `ttlMs`, whatever becomes of the claim: a later `claim` of a
   * released or expired key answers `{ state: 'claimed', reply }`, so a retry is answered with it
   * instead of creating a second CRM entity. `complete` supersedes it.
   */
  keepReply(key: string, reply: unknown, ttlMs: number, token?: string): void | Promise<void>;
  /**
   * Marks `key` done for `ttlMs`, remembering the CRM reply a repeat of it must get. With the
   * `token` of a claim, only while that claim still holds the key, or nothing does: a holder whose
   * lease ran out never overwrites the claim, or the stored reply, of the attempt that took over.
   */
  complete(key: string, ttlMs: number, reply?: unknown, token?: string): void | Promise<void>;
  /**
   * Forgets `key` (a reply kept with `keepReply` stays), so the service's next attempt of a failed
   * delivery is processed. With the `token` of a claim, only while that claim still holds the
   * key: a holder whose lease ran out never frees the claim of the attempt that took over.
   */
  release(key: string, token?: string): void | Promise<void>;
}

/** Options of the built-in in-memory store. */
export interface MemoryDedupeOptions {
  /**
   * Claimed and done keys kept at most; when full, the oldest done key goes first (then the
   * oldest claim). A released key frees its place at once. Kept CRM replies are bounded alike.
   * @default 10000
   */
  maxKeys?: number;
  /** When given, no key lives longer than this (ms), whatever `complete` asks for. */
  ttlMs?: number;
}

interface Claimed {
  token: string;
  expires: number;
}

interface Done {
  expires: number;
  reply: unknown;
}

/**
 * The default store: in memory, for one process, bounded in count and in age. Only claimed and
 * done keys count against `maxKeys` (a released key frees its place at once, so a burst of 503s
 * never pushes out keys already processed); when full, the oldest done key goes first. An
 * expired entry counts as forgotten when its key comes again.
 */
export class MemoryDedupeStore implements DedupeStore {
  /** Claimed and done keys kept at most. */
  readonly maxKeys: number;
  /** The cap on every key's life (ms), when one was given. */
  readonly ttlMs: number | undefined;
  readonly #claimed: BoundedMap<string, Claimed>;
  readonly #done: BoundedMap<string, Done>;
  readonly #replies: BoundedMap<string, Done>;
  readonly #now: () => number;
  #claims = 0;

  constructor(options: MemoryDedupeOptions = {}, now: () => number = Date.now) {
    this.#claimed = new BoundedMap(options.maxKeys ?? 10_000);
    this.maxKeys = this.#claimed.max;
    this.#done = new BoundedMap(this.maxKeys);
    this.#replies = new BoundedMap(this.maxKeys);
    this.ttlMs = options.ttlMs;
    this.#now = now;
  }

  /** Claimed and done keys held now (expired ones included until their key comes again). */
  get size(): number {
    return this.#claimed.size + this.#done.size;
  }

  claim(key: string, leaseMs: number): ClaimResult {
    const now = this.#now();
    const done = this.#live(this.#done, key, now);
    if (done) return { state: 'done', reply: done.reply };
    if (this.#live(this.#claimed, key, now)) return { state: 'processing' };
    const token = String(++this.#claims);
    this.#add(this.#claimed, key, { token, expires: now + this.#cap(leaseMs) });
    // Kept replies are rare (a CRM reply whose dispatch failed): an empty map is not searched.
    const kept = this.#replies.size > 0 ? this.#live(this.#replies, key, now) : undefined;
    return kept ? { state: 'claimed', token, reply: kept.reply } : { state: 'claimed', token };
  }

  keepReply(key: string, reply: unknown, ttlMs: number): void {
    if (this.#done.has(key)) return;
    this.#replies.set(key, { reply, expires: this.#now() + this.#cap(ttlMs) });
  }

  complete(key: string, ttlMs: number, reply?: unknown, token?: string): void {
    const now = this.#now();
    const claimed = this.#live(this.#claimed, key, now);
    if (token !== undefined && ((claimed && claimed.token !== token) || this.#live(this.#done, key, now))) {
      return; // taken over: the successor's claim or reply stays
    }
    this.#claimed.delete(key);
    if (this.#replies.size > 0) this.#replies.delete(key);
    this.#add(this.#done, key, { reply, expires: now + this.#cap(ttlMs) });
  }

  release(key: string, token?: string): void {
    const claimed = this.#claimed.get(key);
    if (claimed && (token === undefined || claimed.token === token)) this.#claimed.delete(key);
  }

  /** The entry of `key` in `map` while it lives; an expired one is forgotten. */
  #live<V extends { expires: number }>(map: BoundedMap<string, V>, key: string, now: number): V | undefined {
    const entry = map.get(key);
    if (entry && entry.expires <= now) map.delete(key);
    return entry && entry.expires > now ? entry : undefined;
  }

  /** Adds to a map of claimed or done keys; when both together are full, the oldest done key goes first. */
  #add<V>(map: BoundedMap<string, V>, key: string, value: V): void {
    if (this.size >= this.maxKeys && !map.has(key)) {
      if (this.#done.size > 0) this.#done.dropOldest();
      else this.#claimed.dropOldest();
    }
    map.set(key, value);
  }

  #cap(ms: number): number {
    return this.ttlMs === undefined ? ms : Math.min(ms, this.ttlMs);
  }
}
