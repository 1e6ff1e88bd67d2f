/** What a {@link BoundedIndex} holds: an object that knows its key, marked by the index. */
export interface Indexed<K> {
  readonly key: K;
  /**
   * Kept by the index: true while it holds this entry, false once deleted, replaced or dropped.
   * An entry is made with the field (any value: `add` sets it), so that every entry has one shape.
   */
  held: boolean;
}

/**
 * The one bounded map of the SDK (dedupe keys, delivery statuses, held claims), on entries the
 * caller makes: a Map bounded in count that forgets its oldest entries first. Only held entries
 * count: a deleted key frees its place at once. Entries sit in insertion order in a ring twice the
 * bound, so dropping the oldest is O(1) (deleting from the front of a Map is not: V8 walks the
 * deleted entries on every new iteration); an entry no longer held is skipped when it comes up,
 * with no lookup, and a ring full of them is compacted, at most once per `max` insertions.
 *
 * The entries are the caller's own objects, so a key costs one object: the dedupe store's entry
 * is its own node here ({@link BoundedMap} wraps plain values in one).
 */
export class BoundedIndex<K, E extends Indexed<K>> {
  readonly #map = new Map<K, E>();
  readonly #ring: (E | undefined)[];
  #head = 0;
  #count = 0;
  /** Entries kept at most. */
  readonly max: number;

  /**
   * @param max - entries kept at most (at least 1)
   * @param onDrop - told of each entry dropped to make room or by {@link BoundedIndex.dropOldest}
   */
  constructor(
    max: number,
    readonly onDrop?: (entry: E) => void,
  ) {
    this.max = Math.max(1, Math.floor(max));
    this.#ring = new Array(this.max * 2);
  }

  /** Entries held now. */
  get size(): number {
    return this.#map.size;
  }

  /** The entry of `key`, if held. */
  get(key: K): E | undefined {
    return this.#map.get(key);
  }

  /**
   * Holds `entry` as the newest (replacing the entry held under its key), dropping the oldest when
   * full. An entry is added once: to move a key to the newest end, add a new entry for it.
   * @throws RangeError when `entry` itself is held already (it would sit twice in the ring)
   */
  add(entry: E): void {
    const held = this.#map.get(entry.key);
    if (held === entry) throw new RangeError('this entry is held already: add a new entry for its key');
    if (held)
      held.held = false; // its place in the ring is stale from now on
    else if (this.#map.size >= this.max) this.dropOldest();
    entry.held = true;
    this.#map.set(entry.key, entry);
    if (this.#count === this.#ring.length) this.#compact();
    this.#ring[(this.#head + this.#count) % this.#ring.length] = entry;
    this.#count++;
  }

  /** Forgets `key`; its place is free at once. */
  delete(key: K): boolean {
    const entry = this.#map.get(key);
    if (!entry) return false;
    entry.held = false;
    return this.#map.delete(key);
  }

  /** The oldest entry held, if any. */
  oldest(): E | undefined {
    while (this.#count > 0 && !this.#ring[this.#head]?.held) this.#shift();
    return this.#count > 0 ? this.#ring[this.#head] : undefined;
  }

  /** Drops the oldest entry held (telling `onDrop`). */
  dropOldest(): void {
    const entry = this.oldest();
    if (!entry) return;
    entry.held = false;
    this.#map.delete(entry.key);
    this.#shift();
    this.onDrop?.(entry);
  }

  #shift(): void {
    this.#ring[this.#head] = undefined;
    this.#head = (this.#head + 1) % this.#ring.length;
    this.#count--;
  }

  // The ring is full but at most `max` entries are held: move them to its front, in order.
  #compact(): void {
    const held: E[] = [];
    for (let i = 0; i < this.#count; i++) {
      const entry = this.#ring[(this.#head + i) % this.#ring.length];
      if (entry?.held) held.push(entry);
    }
    this.#ring.fill(undefined);
    held.forEach((entry, slot) => {
      this.#ring[slot] = entry;
    });
    this.#head = 0;
    this.#count = held.length;
  }
}

/** A value of a {@link BoundedMap}, in the entry the index holds. */
interface Node<K, V> extends Indexed<K> {
  value: V;
}

/** A {@link BoundedIndex} of plain values, each wrapped in an entry: for callers with no entry of their own. */
export class BoundedMap<K, V> {
  readonly #index: BoundedIndex<K, Node<K, V>>;

  /**
   * @param max - entries kept at most (at least 1)
   * @param onDrop - told of each entry dropped to make room or by {@link BoundedMap.dropOldest}
   */
  constructor(max: number, onDrop?: (key: K, value: V) => void) {
    this.#index = new BoundedIndex(max, onDrop && ((node) => onDrop(node.key, node.value)));
  }

  /** Entries kept at most. */
  get max(): number {
    return this.#index.max;
  }

  /** Entries held now. */
  get size(): number {
    return this.#index.size;
  }

  /** The value of `key`, if held. */
  get(key: K): V | undefined {
    return this.#index.get(key)?.value;
  }

  /** Adds `key` as the newest entry (a held key is moved there), dropping the oldest when full. */
  set(key: K, value: V): void {
    this.#index.add({ key, value, held: true });
  }

  /** Forgets `key`; its place is free at once. */
  delete(key: K): boolean {
    return this.#index.delete(key);
  }

  /** The oldest value held, if any. */
  oldest(): V | undefined {
    return this.#index.oldest()?.value;
  }

  /** Drops the oldest entry held (telling `onDrop`). */
  dropOldest(): void {
    this.#index.dropOldest();
  }
}
