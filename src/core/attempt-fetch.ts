/**
 * The time and the transport of one attempt: a signal that aborts at the attempt's deadline or
 * at the caller's abort, and the fetch ky is given.
 * @module
 */
import { onAbort } from '../internal/on-abort.js';
import type { FetchLike } from './options.js';

/** What an attempt rejects with when its time is up. */
export const TIMED_OUT: unique symbol = Symbol('attempt timed out');

/** The time of one attempt. */
export interface Deadline {
  /** Aborts when the time is up, or with the caller's reason when the caller aborts first. */
  readonly signal: AbortSignal;
  /** Whether the time is up: also true when the timer that aborts `signal` has not run yet. */
  passed(): boolean;
  /**
   * Ends the attempt now if its time is up, before its timer ran (the process was busy): returns
   * whether the attempt is over.
   */
  expire(): boolean;
}

/**
 * Runs `work` within a {@link Deadline} of `ms` that also follows the caller's signal, and
 * settles by then whatever the work does: once the signal aborts, it rejects with
 * {@link TIMED_OUT} or the caller's reason, and the work is left to end on its own (the signal
 * tells it to). The timer and the link to the caller's signal end with it.
 */
export async function withDeadline<T>(
  ms: number,
  caller: AbortSignal | undefined,
  work: (deadline: Deadline) => Promise<T>,
): Promise<T> {
  caller?.throwIfAborted();
  const controller = new AbortController();
  const { signal } = controller;
  const end = performance.now() + ms;
  let stop!: (reason: unknown) => void;
  const stopped = new Promise<never>((_resolve, reject) => {
    stop = (reason) => {
      controller.abort(reason);
      reject(reason);
    };
  });
  const timer = setTimeout(stop, ms, TIMED_OUT);
  const unlink = caller ? onAbort(caller, stop) : undefined;
  try {
    return await Promise.race([
      work({
        signal,
        passed: () => signal.aborted || performance.now() >= end,
        expire: () => {
          if (!signal.aborted && performance.now() >= end) stop(TIMED_OUT);
          return signal.aborted;
        },
      }),
      stopped,
    ]);
  } finally {
    clearTimeout(timer);
    unlink?.();
  }
}

/**
 * The fetch ky is given: the client's own, else the global one, looked up at each call so that a
 * test which replaces it is heard. `leaving` runs just before the request is handed over (until
 * then it cannot have reached the service), and may end the attempt instead. It gets ky's request, whose signal follows the attempt's, and
 * that signal as `init.signal` too, for a fetch that reads only `init`.
 *
 * The request is held until the fetch settles. Node's Request follows the signal it was given
 * through a weak reference, and so does a request a custom fetch makes of this one (a proxy
 * agent's `(request) => fetch(request, { dispatcher })`): were this request collected while the
 * fetch waits, the timeout and the caller's abort would no longer reach the connection, which
 * would stay open.
 */
export function fetchHoldingRequest(fetch: FetchLike | undefined, leaving?: () => void): FetchLike {
  return (input, init) => {
    const request = input as Request; // ky calls its fetch with a Request
    // `leaving` may end the attempt (its time is up): then nothing is handed to fetch.
    leaving?.();
    if (request.signal.aborted) return Promise.reject(request.signal.reason);
    const fetched = (fetch ?? globalThis.fetch)(request, { ...init, signal: request.signal });
    // The callback keeps `request` reachable for as long as `fetched` is pending.
    return Promise.resolve(fetched).finally(() => void request);
  };
}
