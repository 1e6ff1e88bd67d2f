import type { ServerResponse } from 'node:http';
import { diff, type Entries } from './delta.js';
import { eventPages } from './event-pages.js';

/**
 * Pages that may listen at once; a new one past this closes the oldest (a tab left open), telling
 * it with a `replaced` event so that it stops instead of reconnecting and closing another.
 */
export const MAX_LISTENERS = 8;
/** Changes within this long are sent as one update (ms): a burst of sends is one update. */
const COALESCE_MS = 25;
/** At most one update per this long (ms), whatever the traffic: a few a second. */
export const MIN_INTERVAL_MS = 250;

/** A page listening, and what it holds once the events written to it are read. */
interface Listener {
  res: ServerResponse;
  /** The entries the page holds when the events of its current update are read. */
  holds: Entries;
  /** The events of its current update not yet written, and the entries they bring it to. */
  update?: { events: Iterator<string>; to: Entries };
  /** True until its first update, which tells it to drop what it held before (a reconnect). */
  fresh: boolean;
}

/**
 * The inbox page's server-sent events: each listener gets everything the page shows when it
 * connects (a `delta` with `reset`), then only what changed (coalesced, at most one update per
 * {@link MIN_INTERVAL_MS}); an update is written as events of bounded size (see eventPages).
 * Bounded in listeners, and in what each holds: events are written only while its connection
 * takes them, and a listener that falls behind is sent, when it drains, what changed since what it
 * holds (a stalled tab must not make the fake buffer an update per change, or a whole state at
 * once). {@link LiveUpdates.close} ends them all.
 */
export class LiveUpdates {
  readonly #listeners = new Set<Listener>();
  /** What the page shows now, as of the last update. */
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
      this.#listeners.delete(oldest as Listener);
      oldest?.res.end('event: replaced\ndata: {}\n\n');
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    this.#flush(); // the others catch up, so that what they hold is what this one starts from
    const listener: Listener = { res, holds: new Map(), fresh: true };
    this.#listeners.add(listener);
    res.once('close', () => this.#listeners.delete(listener));
    res.on('drain', () => this.#write(listener));
    this.#write(listener);
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
    for (const { res } of this.#listeners) res.end();
    this.#listeners.clear();
  }

  /** Takes what the page shows now, and sends what changed to every listener that keeps up. */
  #flush(): void {
    this.#lastFlush = Date.now();
    this.#sent = this.entries();
    for (const listener of this.#listeners) this.#write(listener);
  }

  /**
   * Writes a listener's events while its connection takes them: the rest of its current update,
   * then what changed since (from what it then holds to what the page shows now).
   */
  #write(listener: Listener): void {
    const { res } = listener;
    while (!res.writableNeedDrain && !res.destroyed && this.#listeners.has(listener)) {
      if (!listener.update) {
        if (listener.holds === this.#sent) return;
        const delta = diff(listener.holds, this.#sent);
        if (!listener.fresh && delta.set.length === 0 && delta.del.length === 0) {
          listener.holds = this.#sent;
          return;
        }
        if (listener.fresh) delta.reset = true;
        listener.fresh = false;
        listener.update = { events: eventPages(delta), to: this.#sent };
      }
      const next = listener.update.events.next();
      if (next.done) {
        listener.holds = listener.update.to;
        listener.update = undefined;
      } else res.write(next.value);
    }
  }
}
