/** A place among the background dispatches, taken before a delivery's responder runs. */
export interface Slot {
  /** Starts the dispatch in this place; `work` must not reject (failures are reported inside). */
  start(work: () => Promise<unknown>): Promise<void>;
  /** Gives the place back unused. */
  cancel(): void;
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
    let open = true;
    const close = () => {
      if (open) this.#reserved--;
      open = false;
    };
    return {
      start: (work) => {
        close();
        const end = () => {
          this.#running.delete(task);
        };
        const task: Promise<void> = work().then(end, end);
        this.#running.add(task);
        return task;
      },
      cancel: close,
    };
  }

  /** Resolves when every task started so far, and every task they started, has finished. */
  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }
}
