/** The signals that end a command: Ctrl-C, a termination, the terminal closing. */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Resolves on Ctrl-C, a termination or the terminal closing: what ends `fake-gateway`. */
export function stopSignal(): Promise<void> {
  return new Promise((resolve) => {
    for (const signal of SIGNALS) process.once(signal, () => resolve());
  });
}

/** The work running under {@link untilInterrupted}, so a closed output can stop it too. */
const running = new Set<AbortController>();

/**
 * Stops every work running under {@link untilInterrupted} (its standard output was closed);
 * true when there was one, which then removes what it set up and ends the command.
 */
export function stopRunning(reason: Error): boolean {
  for (const stop of running) stop.abort(reason);
  return running.size > 0;
}

/**
 * Runs `work` with a signal that aborts on Ctrl-C, SIGTERM, SIGHUP or a closed standard output,
 * so a command can stop its flow and remove what it set up (a second Ctrl-C ends the process as
 * usual).
 */
export async function untilInterrupted<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const onSignal = (name: NodeJS.Signals) => stop.abort(new Error(`interrupted (${name})`));
  for (const name of SIGNALS) process.once(name, onSignal);
  running.add(stop);
  try {
    return await work(stop.signal);
  } finally {
    running.delete(stop);
    for (const name of SIGNALS) process.off(name, onSignal);
  }
}
