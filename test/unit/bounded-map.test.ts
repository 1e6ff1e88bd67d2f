import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../src/internal/bounded-map.js';

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

describe('BoundedMap: the oldest entry, found at a constant cost', () => {
  it('replacing a key moves it to the newest end; deleting or dropping the oldest makes the next one the oldest', () => {
    const dropped: [string, number][] = [];
    const map = new BoundedMap<string, number>(2, (key, value) => dropped.push([key, value]));
    map.set('a', 1);
    map.set('b', 2);
    expect(map.oldest()).toBe(1);
    map.set('a', 3); // replaces a: b is now the oldest
    expect([map.oldest(), map.size]).toEqual([2, 2]);
    map.set('c', 4); // full: b goes
    expect(dropped).toEqual([['b', 2]]);
    expect(map.delete('a')).toBe(true);
    expect(map.delete('a')).toBe(false);
    expect(map.oldest()).toBe(4);
    map.dropOldest();
    expect([map.size, map.oldest()]).toEqual([0, undefined]);
    map.dropOldest(); // empty: nothing to drop, nothing told
    map.set('d', 5); // and it works on after being emptied
    expect([map.oldest(), dropped.length]).toEqual([5, 2]);
  });

  it('a full map dropping its oldest at every insertion costs the same per key at 100,000 entries', () => {
    const map = new BoundedMap<number, number>(100_000);
    const cpuMs = (from: number, to: number) => {
      const start = process.cpuUsage();
      for (let i = from; i < to; i++) map.set(i, i);
      const used = process.cpuUsage(start);
      return (used.user + used.system) / 1000;
    };
    const filling = cpuMs(0, 100_000);
    // Looking for the oldest from the start of the Map each time steps over every entry deleted
    // since V8 last compacted its table: tens of thousands per insertion here, thousands of times
    // the cost of filling it (both in this process's CPU time, which other processes do not add to).
    expect(cpuMs(100_000, 300_000)).toBeLessThan(20 * filling + 50);
    expect([map.size, map.oldest(), map.get(299_999)]).toEqual([100_000, 200_000, 299_999]);
  });
});
