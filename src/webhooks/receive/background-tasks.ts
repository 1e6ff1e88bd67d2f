/** A place among the background dispatches, taken before a delivery's responder runs. */
export interface Slot {
  /**
   * Runs the dispatch in this place; `work` must not reject (failures are reported inside). The
   * work is tracked until it settles; the promise of its end is returned (for `waitUntil`).
   */
  start(work: () => Promise<unknown>): Promise<void>;
  /** Gives the place back unused (nothing once the dispatch started in it). */
  cancel(): void;
}

/** A reserved place of {@link BackgroundTasks}. */
class Place implements Slot {
  readonly #tasks: BackgroundTasks;
  #open = true;

  constructor(tasks: BackgroundTasks) {
    this.#tasks = tasks;
  }

  start(work: () => Promise<unknown>): Promise<void> {
    this.cancel();
    return this.#tasks.track(work());
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

  /** Tracks a dispatch until it settles; gives the promise of its end. Called by the place it started in. */
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
