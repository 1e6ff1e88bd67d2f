/**
 * The one bounded map of the SDK (dedupe keys, delivery statuses, held claims, span links): a Map
 * in insertion order that holds at most `max` entries and forgets its oldest first. A deleted key
 * frees its place at once; a key set again moves to the newest end.
 */
export class BoundedMap<K, V> {
  /** Entries kept at most (at least 1). */
  readonly max: number;
  readonly #map = new Map<K, V>();
  /**
   * Walks the map from its oldest entry and is kept between calls, so each deleted entry is
   * stepped over once, not on every call (a Map's iterator passes the deleted entries its table
   * still holds): a full map dropping its oldest key at each insertion stays O(1) per key. Every
   * held entry is at or after it (a key set again goes to the end).
   */
  #cursor: Iterator<[K, V]> | undefined;
  /** The oldest entry, once the cursor found it, until it is deleted or moved. */
  #oldest: [K, V] | undefined;

  /**
   * @param max - entries kept at most (at least 1)
   * @param onDrop - told of each entry dropped to make room or by {@link BoundedMap.dropOldest}
   */
  constructor(
    max: number,
    readonly onDrop?: (key: K, value: V) => void,
  ) {
    this.max = Math.max(1, Math.floor(max));
  }

  /** Entries held now. */
  get size(): number {
    return this.#map.size;
  }

  /** The value of `key`, if held. */
  get(key: K): V | undefined {
    return this.#map.get(key);
  }

  /** Adds `key` as the newest entry (a held key is moved there), dropping the oldest when full. */
  set(key: K, value: V): void {
    if (!this.delete(key) && this.#map.size >= this.max) this.dropOldest();
    this.#map.set(key, value);
  }

  /** Forgets `key`; its place is free at once. */
  delete(key: K): boolean {
    if (this.#oldest !== undefined && this.#oldest[0] === key) this.#oldest = undefined;
    return this.#map.delete(key);
  }

  /** The oldest value held, if any. */
  oldest(): V | undefined {
    return this.#oldestEntry()?.[1];
  }

  /** Drops the oldest entry held (telling `onDrop`). */
  dropOldest(): void {
    const entry = this.#oldestEntry();
    if (entry === undefined) return;
    this.delete(entry[0]);
    this.onDrop?.(entry[0], entry[1]);
  }

  #oldestEntry(): [K, V] | undefined {
    if (this.#oldest === undefined && this.#map.size > 0) {
      let next = this.#cursor?.next();
      if (next === undefined || next.done) {
        this.#cursor = this.#map.entries();
        next = this.#cursor.next();
      }
      this.#oldest = next.value;
    }
    return this.#oldest;
  }
}
