/**
 * Work put off to the end of this turn of the event loop: every call made in one turn runs at one
 * `setImmediate` (a `setTimeout(0)` where there is none), after the I/O of the turn and its ticks.
 * The body reader arms its time limit there, and only for a body still arriving: most deliveries
 * arrive with their headers and have ended by then, so they cost no timer at all.
 */
const queued: (() => void)[] = [];

/** Runs `run` at the end of this turn; looked up at each call, so fake timers installed later take it. */
function schedule(run: () => void): void {
  const { setImmediate } = globalThis as { setImmediate?: (run: () => void) => unknown };
  if (setImmediate) setImmediate(run);
  else setTimeout(run, 0);
}

function runQueued(): void {
  // Taken whole first: work queued while these run goes to the next turn.
  const now = queued.splice(0);
  for (const work of now) work();
}

/** Runs `work` (which must not throw) at the end of this turn, with the rest queued in it. */
export function atTurnEnd(work: () => void): void {
  if (queued.push(work) === 1) schedule(runQueued);
}
