import { BoundedIndex, BoundedMap, type Indexed } from '../../internal/bounded-map.js';
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

/**
 * A claimed or done key, held by the index itself: a key costs this one object from claim to done,
 * its state changing in place.
 */
interface Entry extends Indexed<string> {
  /** False while claimed (for the lease), true once done (for the dedupe TTL). */
  done: boolean;
  /** The claim's token (kept after it is done; only a claimed key's is compared). */
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
 * never pushes out keys already processed); when full, the oldest done key goes first. An
 * expired entry counts as forgotten when its key comes again.
 */
export class MemoryDedupeStore implements DedupeStore {
  /** Claimed and done keys kept at most. */
  readonly maxKeys: number;
  /** The cap on every key's life (ms), when one was given. */
  readonly ttlMs: number | undefined;
  readonly #keys: BoundedIndex<string, Entry>;
  readonly #replies: BoundedMap<string, Kept>;
  readonly #now: () => number;
  /**
   * Entries done while some key was claimed, in the order they were done (some no longer held),
   * so that making room drops the oldest done key without walking past the live claims older
   * than it.
   */
  #doneOrder: (Entry | undefined)[] = [];
  #doneHead = 0;
  /** Entries of #keys that are claims (expired ones included). */
  #claimed = 0;
  #tokens = 0;

  constructor(options: MemoryDedupeOptions = {}, now: () => number = Date.now) {
    this.#keys = new BoundedIndex<string, Entry>(options.maxKeys ?? 10_000, (entry) => {
      if (!entry.done) this.#claimed--;
    });
    this.maxKeys = this.#keys.max;
    this.#replies = new BoundedMap(this.maxKeys);
    this.ttlMs = options.ttlMs;
    this.#now = now;
  }

  /** Claimed and done keys held now (expired ones included until their key comes again). */
  get size(): number {
    return this.#keys.size;
  }

  claim(key: string, leaseMs: number): ClaimResult {
    const now = this.#now();
    const entry = this.#keys.get(key);
    if (entry && entry.expires > now) {
      return entry.done ? { state: 'done', reply: entry.reply } : { state: 'processing' };
    }
    const token = String(++this.#tokens);
    if (entry) this.#forget(entry); // expired: forgotten, then claimed as new
    this.#makeRoom(now);
    this.#keys.add({
      key,
      held: true,
      done: false,
      token,
      expires: now + this.#cap(leaseMs),
      reply: undefined,
    });
    this.#claimed++;
    // Kept replies are rare (a CRM reply whose dispatch failed): an empty map is not searched.
    const kept = this.#replies.size > 0 ? this.#keptReply(key, now) : undefined;
    return kept ? { state: 'claimed', token, reply: kept.reply } : { state: 'claimed', token };
  }

  keepReply(key: string, reply: unknown, ttlMs: number): void {
    if (this.#keys.get(key)?.done) return;
    this.#replies.set(key, { reply, expires: this.#now() + this.#cap(ttlMs) });
  }

  complete(key: string, ttlMs: number, reply?: unknown, token?: string): void {
    const now = this.#now();
    const entry = this.#keys.get(key);
    const live = entry !== undefined && entry.expires > now;
    if (token !== undefined && live && (entry.done || entry.token !== token)) {
      return; // taken over: the successor's claim or reply stays
    }
    if (this.#replies.size > 0) this.#replies.delete(key);
    const expires = now + this.#cap(ttlMs);
    if (entry) {
      entry.expires = expires;
      entry.reply = reply;
      if (!entry.done) {
        this.#claimed--;
        entry.done = true;
        if (this.#claimed > 0) this.#queueDone(entry);
      }
      return;
    }
    // The claim was evicted meanwhile: the work was done all the same.
    this.#makeRoom(now);
    const done: Entry = { key, held: true, done: true, token: '', expires, reply };
    this.#keys.add(done);
    if (this.#claimed > 0) this.#queueDone(done);
  }

  release(key: string, token?: string): void {
    const entry = this.#keys.get(key);
    if (entry && !entry.done && (token === undefined || entry.token === token)) this.#forget(entry);
  }

  #forget(entry: Entry): void {
    this.#keys.delete(entry.key);
    if (!entry.done) this.#claimed--;
  }

  /**
   * Frees a place when full: the oldest key when it is done or expired; when it is a live claim,
   * the oldest done key instead (taken from the done order, not found by walking past the
   * claims: a store full of live claims would make every new key cost a walk past all of them),
   * unless every key is a claim: then the oldest claim goes. Dropping a live claim while a done
   * key is held would let the service's retry run beside its holder.
   */
  #makeRoom(now: number): void {
    while (this.#keys.size >= this.maxKeys) {
      const oldest = this.#keys.oldest() as Entry;
      const done =
        oldest.done || oldest.expires <= now || this.#claimed >= this.#keys.size
          ? undefined
          : this.#oldestDone();
      if (done) {
        this.#keys.delete(done.key);
      } else {
        this.#keys.dropOldest();
      }
    }
  }

  /**
   * Puts a key just done last in the done order, compacting it (at most once per `maxKeys` keys
   * done). Called only while some key is claimed: a key done when none is comes before every
   * claim in #keys, so it is gone before a live claim can be the oldest key, and the common case
   * (a delivery done in the same turn as its claim) costs nothing here.
   */
  #queueDone(entry: Entry): void {
    if (this.#doneOrder.length >= 2 * this.maxKeys) {
      // At most maxKeys entries are held: what is left is at most half.
      const held: Entry[] = [];
      for (let i = this.#doneHead; i < this.#doneOrder.length; i++) {
        const queued = this.#doneOrder[i];
        if (queued?.held) held.push(queued);
      }
      this.#doneOrder = held;
      this.#doneHead = 0;
    }
    this.#doneOrder.push(entry);
  }

  /** The done key completed first among those held (one is, when not every key is a claim). */
  #oldestDone(): Entry | undefined {
    while (this.#doneHead < this.#doneOrder.length) {
      const entry = this.#doneOrder[this.#doneHead];
      this.#doneOrder[this.#doneHead++] = undefined;
      if (entry?.held) return entry; // not released, claimed anew or evicted since
    }
    return undefined;
  }

  #keptReply(key: string, now: number): Kept | undefined {
    const kept = this.#replies.get(key);
    if (kept && kept.expires <= now) this.#replies.delete(key);
    return kept && kept.expires > now ? kept : undefined;
  }

  #cap(ms: number): number {
    return this.ttlMs === undefined ? ms : Math.min(ms, this.ttlMs);
  }
}
