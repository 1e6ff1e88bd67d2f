/** What {@link within} resolves with when the time ran out first. */
export const LATE: unique symbol = Symbol('late');

/**
 * Resolves with what `work` resolves with, or {@link LATE} once `ms` passed first; rejects as
 * `work` does. The work itself goes on: a caller that gives up decides what its late end does.
 * The one time-out race of the SDK: every bounded wait is written with it.
 */
export function within<T>(work: Promise<T>, ms: number): Promise<T | typeof LATE> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => resolve(LATE), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
