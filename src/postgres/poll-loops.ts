import type { GatewayError } from '../core/errors.js';
import { ConsoleReporter } from '../internal/console-reporter.js';
import { sleep } from '../internal/sleep.js';
import { dbError } from './driver.js';

/** A failure a worker or a relay reports: the error, and what it concerned. */
export type LoopErrorHandler = (error: GatewayError) => void;

/** The default report of a worker or relay: the console, at most a few lines a minute. */
export function consoleErrors(what: string): LoopErrorHandler {
  const reporter = new ConsoleReporter(
    (line) => console.warn(line),
    `pass onError to ${what} to see every one`,
  );
  return (error) => reporter.report(`[messaging-gateway-sdk] ${error.message}`);
}

/**
 * `concurrency` loops, each running `step` again at once while it finds work, and waiting
 * `pollIntervalMs` when it finds none or fails (the failure reported). `stop()` ends the waits
 * and resolves when every step under way has ended.
 */
export class PollLoops {
  readonly #stopping = new AbortController();
  readonly #loops: Promise<void>[];

  constructor(
    concurrency: number,
    private readonly pollIntervalMs: number,
    private readonly step: () => Promise<boolean>,
    private readonly onError: LoopErrorHandler,
  ) {
    this.#loops = Array.from({ length: concurrency }, () => this.#loop());
  }

  async #loop(): Promise<void> {
    const { signal } = this.#stopping;
    while (!signal.aborted) {
      let found = false;
      try {
        found = await this.step();
      } catch (error) {
        this.#report(dbError(error));
      }
      if (!found && !signal.aborted) await sleep(this.pollIntervalMs, signal).catch(() => undefined);
    }
  }

  #report(error: GatewayError): void {
    try {
      this.onError(error);
    } catch {
      // a throwing onError must not end the loop
    }
  }

  /** Stops taking work; resolves once the work under way has ended. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    await Promise.all(this.#loops);
  }
}
