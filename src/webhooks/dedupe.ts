/**
 * Where seen idempotency keys are kept. Share one store across a fleet of servers so that a
 * delivery is dispatched once however many servers receive it.
 * @example
 * ```ts
 * // Redis (ioredis or node-redis): SET NX is atomic across the fleet.
 * const store: DedupeStore = {
 *   claim: async (key, ttlMs) => (await redis.set(`hook:${key}`, '1', 'PX', ttlMs, 'NX')) === 'OK',
 *   release: async (key) => void (await redis.del(`hook:${key}`)),
 * };
 * new WebhookHandler({ dedupe: store });
 * ```
 */
export interface DedupeStore {
  /** Atomically marks `key` as seen for `ttlMs`; true when it was not seen before. */
  claim(key: string, ttlMs: number): boolean | Promise<boolean>;
  /** Forgets `key`, so a delivery that failed can be processed when the service sends it again. */
  release(key: string): void | Promise<void>;
}

/** Options of the built-in in-memory store. */
export interface MemoryDedupeOptions {
  /** Keys kept at most; the oldest go first. @default 10000 */
  maxKeys?: number;
  /** How long a key is remembered (ms). @default 86400000 (24 hours) */
  ttlMs?: number;
}

/**
 * The default store: in memory, bounded in count (the oldest claim goes first) and in age.
 * Right for one process; use a shared {@link DedupeStore} for several. Claims are kept in a ring
 * in claim order, so evicting the oldest is O(1) (deleting from the front of a Map is not: V8
 * walks the deleted entries on every new iteration).
 */
export class MemoryDedupeStore implements DedupeStore {
  readonly maxKeys: number;
  readonly #expiry = new Map<string, number>();
  readonly #ringKeys: (string | undefined)[];
  readonly #ringExpiry: Float64Array;
  #head = 0;
  #count = 0;
  readonly #now: () => number;

  constructor(options: MemoryDedupeOptions = {}, now: () => number = Date.now) {
    this.maxKeys = Math.max(1, options.maxKeys ?? 10_000);
    this.#ringKeys = new Array(this.maxKeys);
    this.#ringExpiry = new Float64Array(this.maxKeys);
    this.#now = now;
  }

  /** Keys held now. */
  get size(): number {
    return this.#expiry.size;
  }

  claim(key: string, ttlMs: number): boolean {
    const now = this.#now();
    this.#dropExpired(now);
    const expires = this.#expiry.get(key);
    if (expires !== undefined && expires > now) return false;
    if (this.#count === this.maxKeys) this.#dropOldest();
    const at = now + ttlMs;
    const slot = (this.#head + this.#count) % this.maxKeys;
    this.#ringKeys[slot] = key;
    this.#ringExpiry[slot] = at;
    this.#count++;
    this.#expiry.set(key, at);
    return true;
  }

  release(key: string): void {
    this.#expiry.delete(key); // its ring slot no longer matches and is skipped when it comes up
  }

  #dropExpired(now: number): void {
    while (this.#count > 0 && (this.#ringExpiry[this.#head] as number) <= now) this.#dropOldest();
  }

  #dropOldest(): void {
    const key = this.#ringKeys[this.#head] as string;
    // Only if this slot is still the key's current claim (not released and claimed again).
    if (this.#expiry.get(key) === this.#ringExpiry[this.#head]) this.#expiry.delete(key);
    this.#ringKeys[this.#head] = undefined;
    this.#head = (this.#head + 1) % this.maxKeys;
    this.#count--;
  }
}
