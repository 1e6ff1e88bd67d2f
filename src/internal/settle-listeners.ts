import type { AnyListener } from './listeners.js';

/**
 * Runs `listeners` (what an emitter's `listeners(event)` returned: a copy, so a listener added
 * meanwhile waits for the next run) with `args`, in order, awaits what each returns, and gives the
 * error of each that threw or rejected (empty when all succeeded). Never rejects: one failing
 * listener never stops the others, and no rejection is left unhandled. A plain function, as
 * octokit's `receive` settles its handlers.
 */
export async function settleListeners(
  listeners: readonly AnyListener[],
  ...args: unknown[]
): Promise<unknown[]> {
  const failures: unknown[] = [];
  const running: unknown[] = [];
  for (const listener of listeners) {
    try {
      running.push(listener(...args));
    } catch (error) {
      failures.push(error);
    }
  }
  if (!running.some(isThenable)) return failures; // every listener has finished already
  for (const result of await Promise.allSettled(running)) {
    if (result.status === 'rejected') failures.push(result.reason);
  }
  return failures;
}

function isThenable(value: unknown): boolean {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}
