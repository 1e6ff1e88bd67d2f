/**
 * One real `abort` listener per signal, however many callers wait on it.
 *
 * Node's EventTarget walks its whole listener list on every `addEventListener` (to skip
 * duplicates), so many waits sharing one signal would cost time quadratic in their number. Here
 * each signal gets one listener and a Set of callbacks: adding and removing are O(1).
 * @module
 */

type Callback = (reason: unknown) => void;

const callbacks = new WeakMap<AbortSignal, Set<Callback>>();

/**
 * Calls `fn` with the signal's reason once it aborts. Returns a function that cancels the call
 * (cheap, and harmless after the abort). The caller checks `signal.aborted` first.
 */
export function onAbort(signal: AbortSignal, fn: Callback): () => void {
  let set = callbacks.get(signal);
  if (!set) {
    const created = new Set<Callback>();
    set = created;
    callbacks.set(signal, created);
    const fire = () => {
      callbacks.delete(signal);
      for (const callback of created) callback(signal.reason);
      created.clear();
    };
    signal.addEventListener('abort', fire, { once: true });
  }
  // A wrapper of its own, so the same `fn` registered twice is two entries, cancelled apart.
  const entry: Callback = (reason) => fn(reason);
  const owner = set;
  owner.add(entry);
  return () => {
    owner.delete(entry);
  };
}

/**
 * Settles as `work` does, or rejects with the signal's reason once it aborts, whichever comes
 * first. The wait hangs on the signal's own listener, so a fetch that drops every reference to the
 * request's signal (a garbage collection may then take the chain the abort travels along) can
 * never leave the caller waiting past its timeout.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  let cancel: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    cancel = onAbort(signal, reject);
  });
  return Promise.race([work, aborted]).finally(() => cancel?.());
}
