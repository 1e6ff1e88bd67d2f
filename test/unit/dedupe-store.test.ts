import { describe, expect, it } from 'vitest';
import { MemoryDedupeStore } from '../../src/webhooks/receive/memory-dedupe-store.js';

/** This process's CPU time (ms) spent running `work`: another process on the machine does not add to it. */
function cpuMsOf(work: () => void): number {
  const start = process.cpuUsage();
  work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function store(options: ConstructorParameters<typeof MemoryDedupeStore>[0] = {}) {
  const clock = { now: 0 };
  return { clock, store: new MemoryDedupeStore(options, () => clock.now) };
}

describe('MemoryDedupeStore: claimed for a lease, done with a reply, or forgotten', () => {
  it('claims a new key, says processing while the lease lives, and lets it go when the lease ends', () => {
    const { clock, store: s } = store();
    expect(s.claim('k', 1000)).toMatchObject({ state: 'claimed' });
    expect(s.claim('k', 1000)).toEqual({ state: 'processing' });
    clock.now = 1000; // the holder died: its lease is over
    expect(s.claim('k', 1000)).toMatchObject({ state: 'claimed' });
  });

  it('remembers a completed key with its reply for ttlMs, then forgets it', () => {
    const { clock, store: s } = store();
    s.claim('k', 1000);
    s.complete('k', 60_000, { id: 'crm-1' });
    clock.now = 59_999;
    expect(s.claim('k', 1000)).toEqual({ state: 'done', reply: { id: 'crm-1' } });
    clock.now = 60_000;
    expect(s.claim('k', 1000)).toMatchObject({ state: 'claimed' });
  });

  it('a release with the token of a claim that lost the key frees nothing (its lease ran out, another took over)', () => {
    const { clock, store: s } = store();
    const first = s.claim('k', 1000);
    clock.now = 1000;
    const second = s.claim('k', 1000);
    expect(second).toMatchObject({ state: 'claimed' });
    s.release('k', (first as { token: string }).token); // the first holder failed, late
    s.complete('k', 60_000, { id: 'late' }, (first as { token: string }).token); // or finished, late
    expect(s.claim('k', 1000)).toEqual({ state: 'processing' });
    s.release('k', (second as { token: string }).token);
    expect(s.claim('k', 1000)).toMatchObject({ state: 'claimed' });
  });

  it('remembers a completion whose claim was evicted meanwhile: the work was done', () => {
    const { store: s } = store({ maxKeys: 1 });
    s.claim('a', 1000);
    s.claim('b', 1000); // evicts a
    s.complete('a', 60_000, { id: 'x' });
    expect(s.claim('a', 1000)).toEqual({ state: 'done', reply: { id: 'x' } });
  });

  it('forgets a released key at once', () => {
    const { store: s } = store();
    s.claim('k', 1000);
    s.release('k');
    expect(s.claim('k', 1000)).toMatchObject({ state: 'claimed' });
  });

  it('honours ttlMs as a cap on every key’s life', () => {
    const { clock, store: s } = store({ ttlMs: 500 });
    s.claim('k', 1000);
    s.complete('k', 86_400_000);
    clock.now = 499;
    expect(s.claim('k', 1000).state).toBe('done');
    clock.now = 500;
    expect(s.claim('k', 1000).state).toBe('claimed');
    clock.now = 1000; // the lease was capped too
    expect(s.claim('k', 1000).state).toBe('claimed');
  });

  it('holds at most maxKeys: the oldest claim goes first', () => {
    const { store: s } = store({ maxKeys: 3 });
    for (const k of ['a', 'b', 'c', 'd']) {
      s.claim(k, 1000);
      s.complete(k, 60_000);
    }
    expect(s.size).toBe(3);
    expect(s.claim('a', 1000).state).toBe('claimed'); // evicted
    expect(s.claim('d', 1000).state).toBe('done');
  });

  it('when full, the oldest done key goes first: a live claim older than it is kept', () => {
    const { store: s } = store({ maxKeys: 3 });
    s.claim('held', 1000); // the oldest key, still being processed
    for (const k of ['a', 'b']) {
      s.claim(k, 1000);
      s.complete(k, 60_000);
    }
    s.claim('c', 1000); // full: a (the oldest done key) goes, not the claim
    expect(s.size).toBe(3);
    expect(s.claim('held', 1000).state).toBe('processing');
    expect(s.claim('b', 1000).state).toBe('done');
    expect(s.claim('a', 1000).state).toBe('claimed');
  });

  it('when every key is a claim, the oldest claim goes', () => {
    const { store: s } = store({ maxKeys: 2 });
    for (const k of ['a', 'b', 'c']) s.claim(k, 1000);
    expect(s.size).toBe(2);
    expect(s.claim('a', 1000).state).toBe('claimed');
  });

  it('an expired claim is dropped before a live one when full', () => {
    const { clock, store: s } = store({ maxKeys: 2 });
    s.claim('stale', 100);
    s.claim('live', 10_000);
    clock.now = 100; // stale's holder died
    s.claim('new', 10_000);
    expect(s.claim('live', 1000).state).toBe('processing');
    expect(s.claim('new', 1000).state).toBe('processing');
  });

  it('a key released and claimed again is not evicted by its old slot', () => {
    const { store: s } = store({ maxKeys: 2 });
    s.claim('a', 1000);
    s.release('a');
    s.claim('a', 1000); // a second slot for a; the first is stale
    s.claim('b', 1000); // evicts the stale slot, not the live claim
    expect(s.claim('a', 1000).state).toBe('processing');
  });

  it('when full of live claims (a CRM outage: responders hang), a new key never walks past the claims', () => {
    const newKeys = (target: MemoryDedupeStore) =>
      cpuMsOf(() => {
        for (let i = 0; i < 10_000; i++) {
          target.claim(`k${i}`, 60_000);
          target.complete(`k${i}`, 60_000);
        }
      });
    const alone = newKeys(store({ maxKeys: 100_000 }).store); // the same keys, no claim held
    const { store: s } = store({ maxKeys: 100_000 });
    for (let i = 0; i < 99_999; i++) s.claim(`held${i}`, 60_000);
    // A walk past the claims for each new key would be a billion steps, thousands of times the
    // cost of the same keys in an empty store (the two measured alike, in this process's CPU time).
    expect(newKeys(s)).toBeLessThan(10 * alone + 50);
    expect(s.size).toBe(100_000);
    for (let i = 0; i < 99_999; i++) expect(s.claim(`held${i}`, 60_000).state).toBe('processing');
    expect(s.claim('k9999', 60_000).state).toBe('done'); // the newest done key stays
    expect(s.claim('k0', 60_000).state).toBe('claimed'); // older done keys went first
  });

  it('when full of done keys, each new key costs the same however many are held', () => {
    const { store: s } = store({ maxKeys: 100_000 });
    const deliver = (key: string) => {
      s.claim(key, 60_000);
      s.complete(key, 60_000);
    };
    const filling = cpuMsOf(() => {
      for (let i = 0; i < 100_000; i++) deliver(`old${i}`);
    });
    const replacing = cpuMsOf(() => {
      for (let i = 0; i < 100_000; i++) deliver(`new${i}`); // each one drops the oldest
    });
    // the same as filling the store, measured alike: a walk per eviction would cost thousands of times more
    expect(replacing).toBeLessThan(10 * filling + 50);
    expect([s.size, s.claim('new0', 1).state, s.claim('old99999', 1).state]).toEqual([
      100_000,
      'done',
      'claimed',
    ]);
  });

  it('agrees with a model of its rules over random claims, completions and releases (sizes, answers, evictions)', () => {
    // The model keeps every key in a plain list: the oldest key goes when it is done or expired or
    // every key is a claim; otherwise the key completed first goes. Any drift of the store's count
    // of claims shows here as another key evicted.
    interface Modelled {
      done: boolean;
      expires: number;
      token: string;
      order: number;
      doneAt: number;
    }
    let seed = 1;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let run = 0; run < 500; run++) {
      const max = 1 + random(4);
      const { clock, store: s } = store({ maxKeys: max });
      const model = new Map<string, Modelled>();
      const tokens: Record<string, string> = {};
      let order = 0;
      let issued = 0;
      const makeRoom = () => {
        while (model.size >= max) {
          const held = [...model.entries()].sort(([, a], [, b]) => a.order - b.order);
          const [oldestKey, oldest] = held[0] as [string, Modelled];
          if (oldest.done || oldest.expires <= clock.now || held.every(([, m]) => !m.done)) {
            model.delete(oldestKey);
          } else {
            const done = held.filter(([, m]) => m.done).sort(([, a], [, b]) => a.doneAt - b.doneAt);
            model.delete((done[0] as [string, Modelled])[0]);
          }
        }
      };
      for (let op = 0; op < 60; op++) {
        const key = `k${random(6)}`;
        const what = random(10);
        clock.now += random(3);
        const token = random(2) === 0 ? (tokens[key] ?? 'other') : undefined;
        const m = model.get(key);
        if (what < 4) {
          const lease = 1 + random(5);
          const got = s.claim(key, lease).state;
          let want: string = 'claimed';
          if (m && m.expires > clock.now) want = m.done ? 'done' : 'processing';
          else {
            model.delete(key);
            makeRoom();
            tokens[key] = String(++issued);
            model.set(key, {
              done: false,
              expires: clock.now + lease,
              token: String(issued),
              order: order++,
              doneAt: 0,
            });
          }
          expect(`${run}/${op} ${key} ${got}`).toBe(`${run}/${op} ${key} ${want}`);
        } else if (what < 7) {
          const ttl = 1 + random(8);
          s.complete(key, ttl, op, token);
          const live = m !== undefined && m.expires > clock.now;
          if (token !== undefined && live && (m.done || m.token !== token)) continue;
          if (m) {
            m.expires = clock.now + ttl;
            if (!m.done) Object.assign(m, { done: true, doneAt: order++ });
          } else {
            makeRoom();
            model.set(key, {
              done: true,
              expires: clock.now + ttl,
              token: '',
              order: order++,
              doneAt: order++,
            });
          }
        } else {
          s.release(key, token);
          if (m && !m.done && (token === undefined || m.token === token)) model.delete(key);
        }
        expect(s.size).toBe(model.size);
      }
    }
  });

  it('stays bounded under a million keys', () => {
    const { store: s } = store({ maxKeys: 1000 });
    for (let i = 0; i < 1_000_000; i++) s.claim(`k${i}`, 1000);
    expect(s.size).toBe(1000);
  });
});
