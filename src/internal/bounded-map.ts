/**
 * A Map bounded in count that forgets its oldest entries first: the one bounded map of the SDK
 * (dedupe keys, delivery statuses, held claims). Only held entries count: a deleted key frees its
 * place at once. Keys sit in insertion order in a ring twice the bound, so dropping the oldest is
 * O(1) (deleting from the front of a Map is not: V8 walks the deleted entries on every new
 * iteration); a deleted key's slot is skipped when it comes up, and a ring full of such slots is
 * compacted, at most once per `max` insertions.
 */
export class BoundedMap<K, V> {
  // Each entry remembers its slot, so a slot whose key was deleted (or set again) is known stale.
  readonly #map = new Map<K, { value: V; slot: number }>();
  readonly #ring: (K | undefined)[];
  #head = 0;
  #count = 0;
  /** Entries kept at most. */
  readonly max: number;

  /**
   * @param max - entries kept at most (at least 1)
   * @param onDrop - told of each entry dropped to make room or by {@link BoundedMap.dropOldest}
   */
  constructor(
    max: number,
    readonly onDrop?: (key: K, value: V) => void,
  ) {
    this.max = Math.max(1, Math.floor(max));
    this.#ring = new Array(this.max * 2);
  }

  /** Entries held now. */
  get size(): number {
    return this.#map.size;
  }

  /** The value of `key`, if held. */
  get(key: K): V | undefined {
    return this.#map.get(key)?.value;
  }

  /** Whether `key` is held. */
  has(key: K): boolean {
    return this.#map.has(key);
  }

  /** Adds `key` as the newest entry (a held key is moved there), dropping the oldest when full. */
  set(key: K, value: V): void {
    const held = this.#map.get(key);
    if (held) {
      // Held already: the value changes in place and the key moves to the newest slot.
      held.value = value;
      held.slot = this.#append(key);
      return;
    }
    if (this.#map.size >= this.max) this.dropOldest();
    this.#map.set(key, { value, slot: this.#append(key) });
  }

  /** Puts `key` in the ring's newest slot (its older slot, if any, is stale from now on). */
  #append(key: K): number {
    if (this.#count === this.#ring.length) this.#compact();
    const slot = (this.#head + this.#count) % this.#ring.length;
    this.#ring[slot] = key;
    this.#count++;
    return slot;
  }

  /** Forgets `key`; its place is free at once. */
  delete(key: K): boolean {
    return this.#map.delete(key);
  }

  /** The oldest entry held, if any. */
  oldest(): V | undefined {
    const key = this.oldestKey();
    return key === undefined ? undefined : this.#map.get(key)?.value;
  }

  /** The key of the oldest entry held, if any. */
  oldestKey(): K | undefined {
    this.#skipStale();
    return this.#count > 0 ? (this.#ring[this.#head] as K) : undefined;
  }

  /** Drops the oldest entry held (telling `onDrop`). */
  dropOldest(): void {
    this.#skipStale();
    if (this.#count === 0) return;
    const key = this.#ring[this.#head] as K;
    const { value } = this.#map.get(key) as { value: V };
    this.#map.delete(key);
    this.#shift();
    this.onDrop?.(key, value);
  }

  #live(slot: number): boolean {
    return this.#map.get(this.#ring[slot] as K)?.slot === slot;
  }

  #skipStale(): void {
    while (this.#count > 0 && !this.#live(this.#head)) this.#shift();
  }

  #shift(): void {
    this.#ring[this.#head] = undefined;
    this.#head = (this.#head + 1) % this.#ring.length;
    this.#count--;
  }

  // The ring is full but at most `max` entries are held: move them to its front, in order.
  #compact(): void {
    const keys: K[] = [];
    for (let i = 0; i < this.#count; i++) {
      const slot = (this.#head + i) % this.#ring.length;
      if (this.#live(slot)) keys.push(this.#ring[slot] as K);
    }
    this.#ring.fill(undefined);
    keys.forEach((key, slot) => {
      this.#ring[slot] = key;
      (this.#map.get(key) as { slot: number }).slot = slot;
    });
    this.#head = 0;
    this.#count = keys.length;
  }
}
