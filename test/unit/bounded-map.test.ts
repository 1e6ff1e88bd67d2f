import { describe, expect, it } from 'vitest';
import { BoundedIndex, BoundedMap } from '../../src/internal/bounded-map.js';

describe('BoundedMap: the one bounded map', () => {
  it('keeps at most max entries, dropping the oldest first and telling onDrop', () => {
    const dropped: string[] = [];
    const map = new BoundedMap<string, number>(3, (key) => dropped.push(key));
    for (const [i, key] of ['a', 'b', 'c', 'd', 'e'].entries()) map.set(key, i);
    expect(map.size).toBe(3);
    expect(dropped).toEqual(['a', 'b']);
    expect([map.get('c'), map.get('d'), map.get('e')]).toEqual([2, 3, 4]);
    expect(map.oldest()).toBe(2);
  });

  it('frees a deleted key’s place at once: no held entry is dropped for it', () => {
    const map = new BoundedMap<string, string>(3);
    map.set('done', 'kept');
    for (let i = 0; i < 1000; i++) {
      map.set(`k${i}`, 'claimed');
      map.delete(`k${i}`);
    }
    expect(map.get('done')).toBe('kept');
    expect(map.size).toBe(1);
  });

  it('moves a key set again to the newest end', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    map.set('a', 3);
    map.set('c', 4);
    expect(map.get('b')).toBeUndefined();
    expect([map.get('a'), map.get('c')]).toEqual([3, 4]);
  });

  it('stays bounded and in order through a million insertions with deletions between', () => {
    const map = new BoundedMap<number, number>(1000);
    for (let i = 0; i < 1_000_000; i++) {
      map.set(i, i);
      if (i % 3 === 0) map.delete(i - 500);
    }
    expect(map.size).toBeLessThanOrEqual(1000);
    const first = map.oldest() as number;
    map.dropOldest();
    expect(map.oldest()).toBeGreaterThan(first);
    expect(map.get(999_999)).toBe(999_999);
  });
});

describe('BoundedIndex: the caller’s entries, one object per key', () => {
  interface Item {
    readonly key: string;
    held: boolean;
    n: number;
  }
  const item = (key: string, n: number): Item => ({ key, held: false, n });

  it('holds the very entries it is given and marks them held, replaced, deleted or dropped', () => {
    const dropped: Item[] = [];
    const index = new BoundedIndex<string, Item>(2, (entry) => dropped.push(entry));
    const a = item('a', 1);
    const b = item('b', 2);
    index.add(a);
    index.add(b);
    expect(index.get('a')).toBe(a);
    expect([a.held, b.held]).toEqual([true, true]);
    const a2 = item('a', 3);
    index.add(a2); // replaces a: its old place is stale, b is now the oldest
    expect([a.held, a2.held, index.size]).toEqual([false, true, 2]);
    expect(index.oldest()).toBe(b);
    index.add(item('c', 4)); // full: b goes
    expect(dropped).toEqual([b]);
    expect(b.held).toBe(false);
    expect(index.delete('a')).toBe(true);
    expect(a2.held).toBe(false);
    expect(index.oldest()?.key).toBe('c');
  });

  it('refuses an entry it holds already (it would sit twice in its ring)', () => {
    const index = new BoundedIndex<string, Item>(2);
    const a = item('a', 1);
    index.add(a);
    expect(() => index.add(a)).toThrow(RangeError);
    index.add(item('b', 2));
    index.add(item('c', 3));
    expect([index.size, index.get('a'), a.held]).toEqual([2, undefined, false]);
  });
});
