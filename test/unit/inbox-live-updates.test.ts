// The inbox's live updates in memory: a page that stops reading must not make the fake buffer a
// snapshot per change for it (each may be megabytes); it gets the newest one when it reads again.
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LiveUpdates } from '../../src/testing/inbox/live-updates.js';

/** A response whose reader stopped: every write is buffered, none drains until `drain()`. */
class StalledResponse extends EventEmitter {
  readonly writes: string[] = [];
  writableNeedDrain = false;
  writeHead() {
    return this;
  }
  write(chunk: string): boolean {
    this.writes.push(chunk);
    this.writableNeedDrain = true;
    return false;
  }
  end() {
    this.emit('close');
  }
  drain() {
    this.writableNeedDrain = false;
    this.emit('drain');
  }
}

afterEach(() => vi.useRealTimers());

describe('LiveUpdates', () => {
  it('writes nothing more to a page that is not reading, then the newest snapshot when it drains', async () => {
    vi.useFakeTimers();
    let n = 0;
    const live = new LiveUpdates(() => ({ n: ++n }));
    const res = new StalledResponse();
    live.listen(res as unknown as ServerResponse);
    for (let i = 0; i < 50; i++) {
      live.changed();
      await vi.advanceTimersByTimeAsync(30);
    }
    expect(res.writes).toHaveLength(1); // the first snapshot, still unread
    res.drain();
    expect(res.writes).toHaveLength(2);
    expect(res.writes[1]).toContain(`"n":${n}`);
    res.drain();
    expect(res.writes).toHaveLength(2); // nothing changed since
    live.close();
  });
});
