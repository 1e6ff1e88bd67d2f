/**
 * Waits of over a second for the limiter, told at most once a second: a burst of a thousand
 * sends is one line with a count, not a thousand lines.
 */
export class LongWaits {
  #count = 0;
  #longest = 0;
  #toldAt = Number.NEGATIVE_INFINITY;

  /** Notes a wait of `ms`; returns the line to log now, or undefined when there is none. */
  note(ms: number, now: number = performance.now()): string | undefined {
    if (ms <= 1000) return undefined;
    this.#count++;
    this.#longest = Math.max(this.#longest, ms);
    if (now - this.#toldAt < 1000) return undefined;
    const others = this.#count > 1 ? ` (${this.#count} such waits since the last line)` : '';
    const line = `waited ${Math.round(this.#longest)} ms for the rate limiter${others}`;
    this.#count = 0;
    this.#longest = 0;
    this.#toldAt = now;
    return line;
  }
}
