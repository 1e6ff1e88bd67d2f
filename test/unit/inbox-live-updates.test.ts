// The inbox's live updates in memory: a page gets what changed, not everything, at most a few
// updates a second whatever the traffic; a page that stops reading must not make the fake buffer
// an update per change for it; it gets everything afresh when it reads again.
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Entries, InboxDelta } from '../../src/testing/inbox/delta.js';
import { PAGE_BYTES } from '../../src/testing/inbox/event-pages.js';
import { LiveUpdates, MIN_INTERVAL_MS } from '../../src/testing/inbox/live-updates.js';

/** A response that buffers every write; `stalled` ones never drain until `drain()`. */
class FakeResponse extends EventEmitter {
  readonly writes: string[] = [];
  writableNeedDrain = false;
  constructor(readonly stalled = false) {
    super();
  }
  writeHead() {
    return this;
  }
  write(chunk: string): boolean {
    this.writes.push(chunk);
    this.writableNeedDrain = this.stalled;
    return !this.stalled;
  }
  end() {
    this.emit('close');
  }
  drain() {
    this.writableNeedDrain = false;
    this.emit('drain');
  }
  deltas(): InboxDelta[] {
    return this.writes.map((w) => JSON.parse(/^data: (.*)$/m.exec(w)?.[1] ?? '{}'));
  }
  /** The entries a page holds once it applied every event written (as inbox-live.js does). */
  rebuilt(): Entries {
    const held: Entries = new Map();
    let kept: Set<string> | undefined;
    for (const delta of this.deltas()) {
      if (delta.reset) kept = new Set();
      for (const key of delta.del) held.delete(key);
      for (const [key, entry] of delta.set) {
        held.set(key, entry);
        kept?.add(key);
      }
      if (!delta.more && kept) {
        for (const key of held.keys()) if (!kept.has(key)) held.delete(key);
        kept = undefined;
      }
    }
    return held;
  }
}

/** `n` messages of `chars` characters that JSON writes 6 bytes each (the worst case). */
function longMessages(n: number, chars = 4096): Entries {
  const text = '\u0001'.repeat(chars);
  return new Map(Array.from({ length: n }, (_, i) => [`m:out:${i}`, { message_id: `${i}`, text }]));
}

afterEach(() => vi.useRealTimers());

describe('LiveUpdates', () => {
  it('writes nothing more to a page that is not reading, then what changed meanwhile when it drains', async () => {
    vi.useFakeTimers();
    let n = 0;
    const live = new LiveUpdates((): Entries => new Map([['x', { n: ++n }]]));
    const res = new FakeResponse(true);
    live.listen(res as unknown as ServerResponse);
    for (let i = 0; i < 50; i++) {
      live.changed();
      await vi.advanceTimersByTimeAsync(300);
    }
    expect(res.writes).toHaveLength(1); // the first update, still unread
    res.drain();
    expect(res.writes).toHaveLength(2);
    expect(res.deltas()[1]).toEqual({ set: [['x', { n }]], del: [] });
    res.drain();
    expect(res.writes).toHaveLength(2); // nothing changed since
    live.close();
  });

  it('sends only what changed: a new entry, a changed one, the keys gone', async () => {
    vi.useFakeTimers();
    const qr = `data:image/png;base64,${'A'.repeat(100_000)}`;
    let entries: Entries = new Map([
      ['c:1', { channel_id: '1', qr }],
      ['r:1', { id: 1, status: 200 }],
    ]);
    const live = new LiveUpdates(() => new Map(entries));
    const res = new FakeResponse();
    live.listen(res as unknown as ServerResponse);
    const first = res.writes.length;
    entries = new Map([
      ['c:1', { channel_id: '1', qr }],
      ['r:2', { id: 2, status: 401 }],
    ]);
    live.changed();
    await vi.advanceTimersByTimeAsync(MIN_INTERVAL_MS);
    expect(res.deltas().slice(first)).toEqual([{ set: [['r:2', { id: 2, status: 401 }]], del: ['r:1'] }]);
    expect(res.writes.at(-1)?.length).toBeLessThan(200); // the QR is not sent again
    live.close();
  });

  it(`sends at most one update per ${MIN_INTERVAL_MS} ms however many changes come`, async () => {
    vi.useFakeTimers();
    let n = 0;
    const live = new LiveUpdates((): Entries => new Map([['x', { n }]]));
    const res = new FakeResponse();
    live.listen(res as unknown as ServerResponse);
    for (let i = 0; i < 1000; i++) {
      n++;
      live.changed();
      await vi.advanceTimersByTimeAsync(1); // a change every millisecond, for a second
    }
    await vi.advanceTimersByTimeAsync(MIN_INTERVAL_MS);
    const updates = res.writes.length - 1;
    expect(updates).toBeGreaterThanOrEqual(3);
    expect(updates).toBeLessThanOrEqual(1000 / MIN_INTERVAL_MS + 1);
    expect(res.deltas().at(-1)?.set).toEqual([['x', { n: 1000 }]]); // the last change is not lost
    live.close();
  });
});

describe('LiveUpdates, a large update', () => {
  it(`is written as events of at most ${PAGE_BYTES} bytes, which together give the page everything`, () => {
    const entries = longMessages(500);
    const live = new LiveUpdates(() => entries);
    const res = new FakeResponse();
    live.listen(res as unknown as ServerResponse);
    const sizes = res.writes.map((w) => Buffer.byteLength(w));
    const total = sizes.reduce((a, b) => a + b, 0);
    console.log(
      `500 messages of 4096 characters: ${res.writes.length} events, ${(total / 2 ** 20).toFixed(1)} MiB in all`,
    );
    expect(total).toBeGreaterThan(11 * 2 ** 20);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(PAGE_BYTES + 100);
    const deltas = res.deltas();
    expect(deltas[0]?.reset).toBe(true);
    expect(deltas.slice(1).every((d) => !d.reset)).toBe(true);
    expect(deltas.slice(0, -1).every((d) => d.more)).toBe(true);
    expect(deltas.at(-1)?.more).toBeUndefined();
    expect(res.rebuilt()).toEqual(entries);
    live.close();
  });

  it('is written to a page only as fast as it reads: the rest on drain, then what changed meanwhile', async () => {
    vi.useFakeTimers();
    let entries = longMessages(100);
    const live = new LiveUpdates(() => entries);
    const res = new FakeResponse(true);
    live.listen(res as unknown as ServerResponse);
    expect(res.writes).toHaveLength(1);
    entries = new Map([...longMessages(50), ['v3', { url: null }]]);
    live.changed();
    await vi.advanceTimersByTimeAsync(MIN_INTERVAL_MS);
    expect(res.writes).toHaveLength(1); // nothing more until it reads
    let drains = 0;
    while (res.writableNeedDrain && drains++ < 1000) res.drain();
    expect(res.writes.length).toBeGreaterThan(5);
    expect(res.rebuilt()).toEqual(entries);
    live.close();
  });

  it('sends a page that reconnects everything, marked reset, in one small event when the state is small', () => {
    const live = new LiveUpdates(() => new Map([['v3', { url: null }]]));
    const res = new FakeResponse();
    live.listen(res as unknown as ServerResponse);
    expect(res.deltas()).toEqual([{ reset: true, set: [['v3', { url: null }]], del: [] }]);
    live.close();
  });
});
