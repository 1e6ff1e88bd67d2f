import { BoundedMap } from '../../internal/bounded-map.js';
import type { ClaimResult, DedupeStore } from './dedupe-store.js';

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

/** A claimed or done key. One object from claim to done: its state changes in place. */
interface Entry {
  readonly key: string;
  /** False while claimed (for the lease), true once done (for the dedupe TTL). */
  done: boolean;
  /** The claim's token (only a claimed key's is compared). */
  token: string;
  expires: number;
  reply: unknown;
}

/** A CRM reply kept with a key across a release. */
interface Kept {
  expires: number;
  reply: unknown;
}

/**
 * The default store: in memory, for one process, bounded in count and in age. Only claimed and
 * done keys count against `maxKeys` (a released key frees its place at once, so a burst of 503s
 * never pushes out keys already processed). When full, the oldest key goes if it is done or its
 * lease ran out; if it is a live claim, the key done first goes instead, and only a store holding
 * nothing but claims drops its oldest claim: dropping a live claim while a done key is held would
 * let the service's retry run beside its holder. An expired key counts as forgotten when it comes
 * again.
 */
export class MemoryDedupeStore implements DedupeStore {
  /** Claimed and done keys kept at most. */
  readonly maxKeys: number;
  /** The cap on every key's life (ms), when one was given. */
  readonly ttlMs: number | undefined;
  /** Claimed and done keys, oldest claim first. */
  readonly #keys: BoundedMap<string, Entry>;
  /** The done keys of #keys, in the order they were done. */
  readonly #done: BoundedMap<string, Entry>;
  readonly #replies: BoundedMap<string, Kept>;
  readonly #now: () => number;
  #tokens = 0;

  /**
   * @param options - the bound in count and the cap on age
   * @param now - the clock (ms), for tests
   */
  constructor(options: MemoryDedupeOptions = {}, now: () => number = Date.now) {
    this.#keys = new BoundedMap(options.maxKeys ?? 10_000);
    this.maxKeys = this.#keys.max;
    this.#done = new BoundedMap(this.maxKeys);
    this.#replies = new BoundedMap(this.maxKeys);
    this.ttlMs = options.ttlMs;
    this.#now = now;
  }

  /** Claimed and done keys held now (expired ones included until their key comes again). */
  get size(): number {
    return this.#keys.size;
  }

  /** Claims `key` for `leaseMs` unless it is claimed or done and not expired; says which. */
  claim(key: string, leaseMs: number): ClaimResult {
    const now = this.#now();
    const entry = this.#keys.get(key);
    if (entry && entry.expires > now) {
      return entry.done ? { state: 'done', reply: entry.reply } : { state: 'processing' };
    }
    if (entry) this.#forget(key); // expired: forgotten, then claimed as new
    this.#makeRoom(now);
    const token = String(++this.#tokens);
    this.#keys.set(key, { key, done: false, token, expires: now + this.#cap(leaseMs), reply: undefined });
    const kept = this.#replies.get(key);
    if (kept && kept.expires <= now) this.#replies.delete(key);
    return kept && kept.expires > now
      ? { state: 'claimed', token, reply: kept.reply }
      : { state: 'claimed', token };
  }

  /** Keeps the CRM reply of `key` for `ttlMs` across a release or an expired lease. */
  keepReply(key: string, reply: unknown, ttlMs: number): void {
    if (this.#keys.get(key)?.done) return;
    this.#replies.set(key, { reply, expires: this.#now() + this.#cap(ttlMs) });
  }

  /** Marks `key` done for `ttlMs` with its reply; with a `token`, only while that claim holds it. */
  complete(key: string, ttlMs: number, reply?: unknown, token?: string): void {
    const now = this.#now();
    const entry = this.#keys.get(key);
    if (token !== undefined && entry && entry.expires > now && (entry.done || entry.token !== token)) {
      return; // taken over: the successor's claim or reply stays
    }
    this.#replies.delete(key);
    const expires = now + this.#cap(ttlMs);
    if (entry) {
      entry.expires = expires;
      entry.reply = reply;
      if (!entry.done) {
        entry.done = true;
        this.#done.set(key, entry);
      }
      return;
    }
    // The claim was dropped meanwhile: the work was done all the same.
    this.#makeRoom(now);
    const done: Entry = { key, done: true, token: '', expires, reply };
    this.#keys.set(key, done);
    this.#done.set(key, done);
  }

  /** Forgets a claimed `key` (a kept reply stays); with a `token`, only while that claim holds it. */
  release(key: string, token?: string): void {
    const entry = this.#keys.get(key);
    if (entry && !entry.done && (token === undefined || entry.token === token)) this.#forget(key);
  }

  #forget(key: string): void {
    this.#keys.delete(key);
    this.#done.delete(key);
  }

  /** Frees a place when full, as the class says: a few map operations, never a walk. */
  #makeRoom(now: number): void {
    while (this.#keys.size >= this.maxKeys) {
      const oldest = this.#keys.oldest() as Entry;
      const live = !oldest.done && oldest.expires > now;
      this.#forget(live ? (this.#done.oldest() ?? oldest).key : oldest.key);
    }
  }

  #cap(ms: number): number {
    return this.ttlMs === undefined ? ms : Math.min(ms, this.ttlMs);
  }
}
