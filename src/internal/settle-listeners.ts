import type { EventMap, ListenerMap } from './listener-map.js';

/**
 * Runs every listener of `event` with `args`, in order (each with its context; `once` ones
 * removed), awaits what each returns, and gives the error of each that threw or rejected (empty
 * when all succeeded). Never rejects: one failing listener never stops the others, and no
 * rejection is left unhandled. A plain function, as octokit's `receive` settles its handlers.
 */
export async function settleListeners<Events extends EventMap<Events>>(
  listeners: ListenerMap<Events>,
  event: keyof Events,
  ...args: unknown[]
): Promise<unknown[]> {
  const failures: unknown[] = [];
  const running: unknown[] = [];
  for (const { fn, context } of listeners.take(event)) {
    try {
      running.push(fn.apply(context, args));
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
