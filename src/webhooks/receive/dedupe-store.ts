import { BoundedMap } from '../../internal/bounded-map.js';
/**
 * What a {@link DedupeStore} says of a key when a delivery claims it.
 * - `claimed`: nobody holds it; the caller holds it now, for the lease, and goes ahead. A store may
 *   name the claim with a `token`, which the handler gives back to `complete` and `release`.
 * - `processing`: another delivery with this key is being processed (its lease is alive).
 * - `done`: processed already; `reply` is the CRM reply stored with it, if there was one.
 */
export type ClaimResult =
  | { state: 'claimed'; token?: string }
  | { state: 'processing' }
  | { state: 'done'; reply?: unknown };

/**
 * Where the handler keeps idempotency keys, in three states: claimed for a lease, done
 * (remembering a CRM reply), or forgotten. Share one store across a fleet of servers so that a
 * delivery is processed by exactly one of them however many receive it (`redisDedupeStore` of
 * `messaging-gateway-sdk/redis` is one).
 *
 * A claim whose holder died expires with its lease, so the service's next attempt is processed.
 */
export interface DedupeStore {
  /** Atomically claims `key` for `leaseMs` unless it is held or done; says which. */
  claim(key: string, leaseMs: number): ClaimResult | Promise<ClaimResult>;
  /**
   * Marks `key` done for `ttlMs`, remembering the CRM reply a repeat of it must get. With the
   * `token` of a claim, only while that claim still holds the key, or nothing does: a holder whose
   * lease ran out never overwrites the claim of the attempt that took over.
   */
  complete(key: string, ttlMs: number, reply?: unknown, token?: string): void | Promise<void>;
  /**
   * Forgets `key`, so the service's next attempt of a failed delivery is processed. With the
   * `token` of a claim, only while that claim still holds the key: a holder whose lease ran out
   * never frees the claim of the attempt that took over.
   */
  release(key: string, token?: string): void | Promise<void>;
}

/** Options of the built-in in-memory store. */
export interface MemoryDedupeOptions {
  /** Keys kept at most; past it the oldest claim is forgotten first. @default 10000 */
  maxKeys?: number;
  /** When given, no key lives longer than this (ms), whatever `complete` asks for. */
  ttlMs?: number;
}

interface Entry {
  key: string;
  token: string;
  done: boolean;
  expires: number;
  reply: unknown;
}

/**
 * The default store: in memory, for one process, bounded in count (the oldest claim goes first;
 * a released key frees its place at once) and in age. An expired entry counts as forgotten when
 * its key comes again.
 */
export class MemoryDedupeStore implements DedupeStore {
  /** Keys kept at most. */
  readonly maxKeys: number;
  /** The cap on every key's life (ms), when one was given. */
  readonly ttlMs: number | undefined;
  readonly #entries: BoundedMap<string, Entry>;
  readonly #now: () => number;
  #claims = 0;

  constructor(options: MemoryDedupeOptions = {}, now: () => number = Date.now) {
    this.#entries = new BoundedMap(options.maxKeys ?? 10_000);
    this.maxKeys = this.#entries.max;
    this.ttlMs = options.ttlMs;
    this.#now = now;
  }

  /** Keys held now (claimed or done, expired ones included until their key comes again). */
  get size(): number {
    return this.#entries.size;
  }

  claim(key: string, leaseMs: number): ClaimResult {
    const now = this.#now();
    const held = this.#entries.get(key);
    if (held && held.expires > now) {
      return held.done ? { state: 'done', reply: held.reply } : { state: 'processing' };
    }
    const token = String(++this.#claims);
    this.#entries.set(key, { key, token, done: false, expires: now + this.#cap(leaseMs), reply: undefined });
    return { state: 'claimed', token };
  }

  complete(key: string, ttlMs: number, reply?: unknown, token?: string): void {
    const now = this.#now();
    let entry = this.#entries.get(key);
    if (entry && entry.expires > now && token !== undefined && entry.token !== token) return; // taken over
    if (!entry || entry.expires <= now) {
      // Evicted or expired meanwhile: the work is done all the same, so remember it.
      const claimed = this.claim(key, ttlMs);
      entry = this.#entries.get(key);
      if (claimed.state !== 'claimed' || !entry) return;
    }
    entry.done = true;
    entry.reply = reply;
    entry.expires = this.#now() + this.#cap(ttlMs);
  }

  release(key: string, token?: string): void {
    const entry = this.#entries.get(key);
    if (!entry || (token !== undefined && (entry.done || entry.token !== token))) return;
    this.#entries.delete(key);
  }

  #cap(ms: number): number {
    return this.ttlMs === undefined ? ms : Math.min(ms, this.ttlMs);
  }
}
