/**
 * Runs `work` with a signal that aborts on Ctrl-C or a termination signal, so a command can stop
 * its flow and remove what it set up (a second Ctrl-C ends the process as usual).
 */
export async function untilInterrupted<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const onSignal = (name: NodeJS.Signals) => stop.abort(new Error(`interrupted (${name})`));
  const signals = ['SIGINT', 'SIGTERM'] as const;
  for (const name of signals) process.once(name, onSignal);
  try {
    return await work(stop.signal);
  } finally {
    for (const name of signals) process.off(name, onSignal);
  }
}
