// The inbox's live updates in memory: a page gets what changed, not everything, at most a few
// updates a second whatever the traffic; a page that stops reading must not make the fake buffer
// an update per change for it; it gets everything afresh when it reads again.
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Entries, InboxDelta } from '../../src/testing/inbox/delta.js';
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
}

afterEach(() => vi.useRealTimers());

describe('LiveUpdates', () => {
  it('writes nothing more to a page that is not reading, then everything afresh when it drains', async () => {
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
    expect(res.deltas()[1]).toEqual({ reset: true, set: [['x', { n }]], del: [] });
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
    entries = new Map([
      ['c:1', { channel_id: '1', qr }],
      ['r:2', { id: 2, status: 401 }],
    ]);
    live.changed();
    await vi.advanceTimersByTimeAsync(MIN_INTERVAL_MS);
    expect(res.deltas()[1]).toEqual({ set: [['r:2', { id: 2, status: 401 }]], del: ['r:1'] });
    expect(res.writes[1]?.length).toBeLessThan(200); // the QR is not sent again
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
