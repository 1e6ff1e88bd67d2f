/**
 * Work put off to the end of this turn of the event loop: every call made in one turn runs at one
 * `setImmediate` (a `setTimeout(0)` where there is none), after the I/O of the turn and its ticks.
 * The body reader arms its time limit there, and only for a body still arriving: most deliveries
 * arrive with their headers and have ended by then, so they cost no timer at all.
 */
const queued: (() => void)[] = [];

/**
 * The `setImmediate` (or `setTimeout`) the queued work was handed to, until it runs. Not just a
 * flag: a run handed to fake timers that are then uninstalled unadvanced never comes, and with a
 * flag no later call would schedule another, so no body read after it would get a time limit.
 */
let pendingOn: unknown;

function runQueued(): void {
  pendingOn = undefined;
  // Taken whole first: work queued while these run goes to the next turn.
  const now = queued.splice(0);
  for (const work of now) work();
}

/** Runs `work` (which must not throw) at the end of this turn, with the rest queued in it. */
export function atTurnEnd(work: () => void): void {
  queued.push(work);
  // Looked up at each call, so fake timers installed (or removed) later take it; a run handed to
  // timers no longer installed is handed again (if both come, the second finds nothing to do).
  const { setImmediate } = globalThis as { setImmediate?: (run: () => void) => unknown };
  const on = setImmediate ?? setTimeout;
  if (pendingOn === on) return;
  pendingOn = on;
  if (setImmediate) setImmediate(runQueued);
  else setTimeout(runQueued, 0);
}
