import { onAbort } from '../internal/on-abort.js';
import type { RateLimiterLike, Release } from './rate-limiter.js';

/**
 * `limiter.acquire(signal)`, bounded by the signal whatever the limiter does: a limiter that
 * ignores its signal still cannot hold the call past its timeout, and a slot it grants too late
 * is given back at once.
 */
export function acquireWithin(limiter: RateLimiterLike, signal: AbortSignal): Promise<Release> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<Release>((resolve, reject) => {
    let settled = false;
    const cancel = onAbort(signal, (reason) => {
      settled = true;
      reject(reason);
    });
    const granted = (release: Release) => {
      cancel();
      if (settled) release();
      else {
        settled = true;
        resolve(release);
      }
    };
    const refused = (error: unknown) => {
      cancel();
      if (!settled) {
        settled = true;
        reject(error);
      }
    };
    try {
      limiter.acquire(signal).then(granted, refused);
    } catch (error) {
      refused(error);
    }
  });
}
