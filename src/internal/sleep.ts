import { onAbort } from './on-abort.js';

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const cancel = signal
      ? onAbort(signal, (reason) => {
          clearTimeout(handle);
          reject(reason);
        })
      : undefined;
    const handle = setTimeout(() => {
      cancel?.();
      resolve();
    }, ms);
  });
}
