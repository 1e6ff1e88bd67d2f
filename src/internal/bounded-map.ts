/** One held entry, in the map and in the ring; it goes stale when its key is deleted or set again. */
interface Node<K, V> {
  readonly key: K;
  value: V;
  live: boolean;
}

/**
 * A Map bounded in count that forgets its oldest entries first: the one bounded map of the SDK
 * (dedupe keys, delivery statuses, held claims). Only held entries count: a deleted key frees its
 * place at once. Entries sit in insertion order in a ring twice the bound, so dropping the oldest is
 * O(1) (deleting from the front of a Map is not: V8 walks the deleted entries on every new
 * iteration); a stale entry is skipped when it comes up, with no lookup, and a ring full of them
 * is compacted, at most once per `max` insertions.
 */
export class BoundedMap<K, V> {
  readonly #map = new Map<K, Node<K, V>>();
  readonly #ring: (Node<K, V> | undefined)[];
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
    if (held)
      held.live = false; // its place in the ring is stale from now on
    else if (this.#map.size >= this.max) this.dropOldest();
    const node: Node<K, V> = { key, value, live: true };
    this.#map.set(key, node);
    this.#append(node);
  }

  /** Forgets `key`; its place is free at once. */
  delete(key: K): boolean {
    const node = this.#map.get(key);
    if (!node) return false;
    node.live = false;
    return this.#map.delete(key);
  }

  /** The oldest entry held, if any. */
  oldest(): V | undefined {
    return this.#oldestNode()?.value;
  }

  /** Drops the oldest entry held (telling `onDrop`). */
  dropOldest(): void {
    const node = this.#oldestNode();
    if (!node) return;
    node.live = false;
    this.#map.delete(node.key);
    this.#shift();
    this.onDrop?.(node.key, node.value);
  }

  #oldestNode(): Node<K, V> | undefined {
    while (this.#count > 0 && !this.#ring[this.#head]?.live) this.#shift();
    return this.#count > 0 ? this.#ring[this.#head] : undefined;
  }

  #append(node: Node<K, V>): void {
    if (this.#count === this.#ring.length) this.#compact();
    this.#ring[(this.#head + this.#count) % this.#ring.length] = node;
    this.#count++;
  }

  #shift(): void {
    this.#ring[this.#head] = undefined;
    this.#head = (this.#head + 1) % this.#ring.length;
    this.#count--;
  }

  // The ring is full but at most `max` entries are held: move them to its front, in order.
  #compact(): void {
    const live: Node<K, V>[] = [];
    for (let i = 0; i < this.#count; i++) {
      const node = this.#ring[(this.#head + i) % this.#ring.length];
      if (node?.live) live.push(node);
    }
    this.#ring.fill(undefined);
    live.forEach((node, slot) => {
      this.#ring[slot] = node;
    });
    this.#head = 0;
    this.#count = live.length;
  }
}
