import type { ServerResponse } from 'node:http';
import { diff, type Entries, type InboxDelta } from './delta.js';

/**
 * Pages that may listen at once; a new one past this closes the oldest (a tab left open), telling
 * it with a `replaced` event so that it stops instead of reconnecting and closing another.
 */
export const MAX_LISTENERS = 8;
/** Changes within this long are sent as one update (ms): a burst of sends is one update. */
const COALESCE_MS = 25;
/** At most one update per this long (ms), whatever the traffic: a few a second. */
export const MIN_INTERVAL_MS = 250;

/**
 * The inbox page's server-sent events: each listener gets everything the page shows when it
 * connects (a `delta` with `reset`), then only what changed (coalesced, at most one update per
 * {@link MIN_INTERVAL_MS}). Bounded in listeners, and in what each holds: a listener that has not
 * read its last update is skipped, and gets everything afresh when it drains (a stalled tab must
 * not make the fake buffer an update per change). {@link LiveUpdates.close} ends them all.
 */
export class LiveUpdates {
  readonly #listeners = new Set<ServerResponse>();
  /** Listeners skipped while their buffer was full: they get everything afresh on drain. */
  readonly #behind = new WeakSet<ServerResponse>();
  /** What every listener up to date holds. */
  #sent: Entries = new Map();
  #lastFlush = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(readonly entries: () => Entries) {}

  /** Answers `res` as an event stream and keeps it until the page or the gateway goes. */
  listen(res: ServerResponse): void {
    if (this.#closed) {
      res.writeHead(503).end();
      return;
    }
    if (this.#listeners.size >= MAX_LISTENERS) {
      const [oldest] = this.#listeners;
      this.#listeners.delete(oldest as ServerResponse);
      oldest?.end('event: replaced\ndata: {}\n\n');
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    this.#flush(); // the others catch up, so that what they hold is what this one starts from
    this.#listeners.add(res);
    res.once('close', () => this.#listeners.delete(res));
    res.on('drain', () => {
      if (!this.#behind.has(res) || !this.#listeners.has(res)) return;
      this.#behind.delete(res);
      res.write(this.#everything());
    });
    res.write(this.#everything());
  }

  /** Something changed: send what changed to every listener soon. */
  changed(): void {
    if (this.#timer || this.#listeners.size === 0) return;
    const wait = Math.max(COALESCE_MS, this.#lastFlush + MIN_INTERVAL_MS - Date.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#flush();
    }, wait);
    this.#timer.unref?.();
  }

  /** Ends every stream (the gateway closes). */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const res of this.#listeners) res.end();
    this.#listeners.clear();
  }

  /** Sends what changed since the last update to every listener that keeps up. */
  #flush(): void {
    this.#lastFlush = Date.now();
    const after = this.entries();
    const delta = diff(this.#sent, after);
    this.#sent = after;
    if (delta.set.length === 0 && delta.del.length === 0) return;
    const event = format(delta);
    for (const res of this.#listeners) {
      if (this.#behind.has(res)) continue;
      if (res.writableNeedDrain) this.#behind.add(res);
      else res.write(event);
    }
  }

  #everything(): string {
    return format({ reset: true, set: [...this.#sent], del: [] });
  }
}

// JSON has no raw newline, so one `data:` line carries it whole (SSE ends an event at a blank line)
const format = (delta: InboxDelta) => `event: delta\ndata: ${JSON.stringify(delta)}\n\n`;
