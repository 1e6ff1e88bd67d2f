/** Lines written per window at most; past it, reports are counted and one line says how many. */
export const CONSOLE_LINES_PER_WINDOW = 10;
/** The window of {@link CONSOLE_LINES_PER_WINDOW} (ms). */
export const CONSOLE_WINDOW_MS = 60_000;

/**
 * Where the handler's reports go when nobody listens to 'error': the console, bounded so that a
 * flood of refused requests can never become a disk-filling log. At most
 * {@link CONSOLE_LINES_PER_WINDOW} lines per {@link CONSOLE_WINDOW_MS}; the rest are counted, and
 * one line at the window's end says how many were left out.
 */
export class ConsoleReporter {
  #windowStart = Number.NEGATIVE_INFINITY;
  #written = 0;
  #leftOut = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly write: (line: string) => void = (line) => console.error(line),
    /** How to see every report, said in the line that counts the ones left out. */
    private readonly seeAll = "listen to 'error' on the WebhookHandler to see every one",
  ) {}

  /** Writes `line`, unless this window's lines are spent (then counts it). */
  report(line: string): void {
    const now = Date.now();
    if (now - this.#windowStart >= CONSOLE_WINDOW_MS) {
      this.#flush();
      this.#windowStart = now;
      this.#written = 0;
    }
    if (this.#written < CONSOLE_LINES_PER_WINDOW) {
      this.#written++;
      this.write(line);
      return;
    }
    this.#leftOut++;
    if (!this.#timer) {
      this.#timer = setTimeout(() => this.#flush(), this.#windowStart + CONSOLE_WINDOW_MS - now);
      (this.#timer as { unref?: () => void }).unref?.(); // never keeps a process alive
    }
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#leftOut === 0) return;
    const count = this.#leftOut;
    this.#leftOut = 0;
    this.write(
      `[messaging-gateway-sdk] ${count} more report${count > 1 ? 's' : ''} left out in the last ` +
        `${CONSOLE_WINDOW_MS / 1000} s; ${this.seeAll}`,
    );
  }
}
