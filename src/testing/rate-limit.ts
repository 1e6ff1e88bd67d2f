/**
 * The service's limit as the spec states it: N requests per window, the counter reset every
 * window (a fixed window, not a sliding one), excess answered 429.
 */
export class FixedWindow {
  #windowStart = 0;
  #count = 0;
  /** Requests answered 429 so far. */
  rejected = 0;

  constructor(
    readonly requests: number,
    readonly intervalMs: number,
  ) {}

  /** Starts a fresh window. */
  reset(): void {
    this.#windowStart = 0;
    this.#count = 0;
    this.rejected = 0;
  }

  /** undefined when the request may pass, else the seconds until the counter resets. */
  take(now = Date.now()): number | undefined {
    if (now - this.#windowStart >= this.intervalMs) {
      this.#windowStart = now;
      this.#count = 0;
    }
    if (this.#count < this.requests) {
      this.#count++;
      return undefined;
    }
    this.rejected++;
    return Math.max(0.001, (this.#windowStart + this.intervalMs - now) / 1000);
  }
}
