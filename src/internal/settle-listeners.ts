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
  const entries = listeners.take(event);
  if (entries.length === 0) return [];
  // An async callback turns a listener's throw into a rejection, so allSettled sees it too.
  const runs = entries.map(async ({ fn, context }) => fn.apply(context, args));
  const settled = await Promise.allSettled(runs);
  return settled.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
}
