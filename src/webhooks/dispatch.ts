import type { Webhook } from './parse.js';

/** A listener as the handler calls it. */
export type AnyListener = (webhook: Webhook) => unknown;

/**
 * Runs every listener of one delivery at once and waits for all of them. Returns the failures
 * (a throw or a rejection of each listener that failed), empty when all succeeded: one failing
 * listener never stops the others.
 */
export async function runListeners(listeners: readonly AnyListener[], webhook: Webhook): Promise<unknown[]> {
  const failures: unknown[] = [];
  await Promise.all(
    listeners.map(async (listener) => {
      try {
        await listener(webhook);
      } catch (error) {
        failures.push(error);
      }
    }),
  );
  return failures;
}

/** Dispatches running after their answer, counted (for `maxPendingDispatches`) and awaitable. */
export class BackgroundTasks {
  readonly #running = new Set<Promise<void>>();

  /** Tasks running now. */
  get size(): number {
    return this.#running.size;
  }

  /** Starts `work` in the background; it must not reject (failures are reported inside it). */
  start(work: () => Promise<void>): Promise<void> {
    const task: Promise<void> = work()
      .catch(() => {})
      .finally(() => this.#running.delete(task));
    this.#running.add(task);
    return task;
  }

  /** Resolves when every task started so far, and every task they started, has finished. */
  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }
}
