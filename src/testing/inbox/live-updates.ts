import type { ServerResponse } from 'node:http';

/**
 * Pages that may listen at once; a new one past this closes the oldest (a tab left open), telling
 * it with a `replaced` event so that it stops instead of reconnecting and closing another.
 */
export const MAX_LISTENERS = 8;
/** Changes within this long are sent as one snapshot (ms): a burst of sends is one update. */
const COALESCE_MS = 25;

/**
 * The inbox page's server-sent events: each listener gets the snapshot when it connects and after
 * every change (coalesced). Bounded in listeners, and in what each holds: a listener that has not
 * read its last snapshot is skipped, and gets the newest one when it drains (a stalled tab must
 * not make the fake buffer a snapshot per change). {@link LiveUpdates.close} ends them all.
 */
export class LiveUpdates {
  readonly #listeners = new Set<ServerResponse>();
  /** Listeners skipped while their buffer was full: they get the newest snapshot on drain. */
  readonly #behind = new WeakSet<ServerResponse>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(readonly snapshot: () => unknown) {}

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
    this.#listeners.add(res);
    res.once('close', () => this.#listeners.delete(res));
    res.on('drain', () => {
      if (!this.#behind.has(res) || !this.#listeners.has(res)) return;
      this.#behind.delete(res);
      res.write(this.#event());
    });
    res.write(this.#event());
  }

  /** Something changed: send a snapshot to every listener soon. */
  changed(): void {
    if (this.#timer || this.#listeners.size === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#listeners.size === 0) return;
      const event = this.#event();
      for (const res of this.#listeners) {
        if (res.writableNeedDrain) this.#behind.add(res);
        else res.write(event);
      }
    }, COALESCE_MS);
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

  #event(): string {
    // JSON has no raw newline, so one `data:` line carries it whole (SSE ends an event at a blank line)
    return `event: snapshot\ndata: ${JSON.stringify(this.snapshot())}\n\n`;
  }
}
