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
 * The default store: in memory, for one process, bounded in count (the oldest claim goes first)
 * and in age. Entries sit in a ring in claim order, so evicting the oldest is O(1) (deleting from
 * the front of a Map is not: V8 walks the deleted entries on every new iteration). An expired
 * entry counts as forgotten when its key comes again.
 */
export class MemoryDedupeStore implements DedupeStore {
  /** Keys kept at most. */
  readonly maxKeys: number;
  /** The cap on every key's life (ms), when one was given. */
  readonly ttlMs: number | undefined;
  readonly #entries = new Map<string, Entry>();
  readonly #ring: (Entry | undefined)[];
  #head = 0;
  #count = 0;
  readonly #now: () => number;
  #claims = 0;

  constructor(options: MemoryDedupeOptions = {}, now: () => number = Date.now) {
    this.maxKeys = Math.max(1, Math.floor(options.maxKeys ?? 10_000));
    this.ttlMs = options.ttlMs;
    this.#ring = new Array(this.maxKeys);
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
    if (held) this.#entries.delete(key);
    const token = String(++this.#claims);
    const entry: Entry = { key, token, done: false, expires: now + this.#cap(leaseMs), reply: undefined };
    if (this.#count === this.maxKeys) this.#dropOldest();
    this.#ring[(this.#head + this.#count) % this.maxKeys] = entry;
    this.#count++;
    this.#entries.set(key, entry);
    return { state: 'claimed', token };
  }

  complete(key: string, ttlMs: number, reply?: unknown, token?: string): void {
    const now = this.#now();
    let entry = this.#entries.get(key);
    if (entry && entry.expires > now && token !== undefined && entry.token !== token) return; // taken over
    if (!entry || entry.expires <= now) {
      // Evicted or expired meanwhile: the work is done all the same, so remember it.
      if (entry) this.#entries.delete(key);
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
    this.#entries.delete(key); // its ring slot no longer matches and is skipped when it comes up
  }

  #cap(ms: number): number {
    return this.ttlMs === undefined ? ms : Math.min(ms, this.ttlMs);
  }

  #dropOldest(): void {
    const entry = this.#ring[this.#head] as Entry;
    // Only if the slot is still the key's current entry (not released and claimed again).
    if (this.#entries.get(entry.key) === entry) this.#entries.delete(entry.key);
    this.#ring[this.#head] = undefined;
    this.#head = (this.#head + 1) % this.maxKeys;
    this.#count--;
  }
}
