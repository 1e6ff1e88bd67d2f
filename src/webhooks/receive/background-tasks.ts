/** A place among the background dispatches, taken before a delivery's responder runs. */
export interface Slot {
  /**
   * Runs the dispatch in this place; `work` must not throw or reject (failures are reported
   * inside). Work that returns a promise runs on after the answer: it is tracked until it settles,
   * and the promise returned (for `waitUntil`). Work that finished at once returns nothing.
   */
  start(work: () => unknown): Promise<void> | undefined;
  /** Gives the place back unused. */
  cancel(): void;
}

/** A reserved place: one object per delivery, its methods shared. */
class Place implements Slot {
  #open = true;
  readonly #tasks: BackgroundTasks;

  constructor(tasks: BackgroundTasks) {
    this.#tasks = tasks;
  }

  start(work: () => unknown): Promise<void> | undefined {
    this.cancel();
    let running: unknown;
    try {
      running = work();
    } catch {
      return undefined; // the work ran (and ended) in this place: its answer stays
    }
    if (!(running instanceof Promise)) return undefined; // synchronous listeners: done already
    return this.#tasks.track(running);
  }

  cancel(): void {
    if (this.#open) this.#tasks.unreserve();
    this.#open = false;
  }
}

/**
 * Dispatches running after their answer, bounded (`maxPendingDispatches`) and awaitable. A place
 * is reserved before a delivery's responder runs, so a burst of CRM requests cannot all pass the
 * bound while their responders run.
 */
export class BackgroundTasks {
  readonly #running = new Set<Promise<void>>();
  #reserved = 0;

  constructor(readonly max: number) {}

  /** Tasks running now. */
  get size(): number {
    return this.#running.size;
  }

  /** A place for one more dispatch, or undefined when running and reserved ones fill the bound. */
  reserve(): Slot | undefined {
    if (this.#running.size + this.#reserved >= this.max) return undefined;
    this.#reserved++;
    return new Place(this);
  }

  /** A reserved place given back (unused, or used by a dispatch that started). Called by its place, once. */
  unreserve(): void {
    this.#reserved--;
  }

  /**
   * Tracks a dispatch running on after its answer until it settles; gives the promise of its end.
   * Called by a place whose dispatch returned a promise.
   */
  track(running: Promise<unknown>): Promise<void> {
    const end = () => {
      this.#running.delete(task);
    };
    const task: Promise<void> = running.then(end, end);
    this.#running.add(task);
    return task;
  }

  /** Resolves when every task started so far, and every task they started, has finished. */
  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }
}
