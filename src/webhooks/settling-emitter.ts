import { EventEmitter } from 'eventemitter3';

type Fn = (...args: never[]) => unknown;

/** No failures. Frozen: shared by every emit that had none. */
const NONE: unknown[] = Object.freeze([]) as unknown as unknown[];

function isThenable(value: unknown): boolean {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}
type Names<E extends EventEmitter.ValidEventTypes> = EventEmitter.EventNames<E>;
type ListenerOf<E extends EventEmitter.ValidEventTypes, T extends Names<E>> = EventEmitter.EventListener<
  E,
  T
>;

/**
 * An EventEmitter whose emit can wait for its listeners: `emitSettled` calls every listener as
 * `emit` does (`once` and the listener's context honoured) and resolves with the failure of each
 * one that threw or rejected. One failing listener never keeps the others from running, and no
 * rejection is left unhandled, whatever a listener returns.
 *
 * Each listener is wrapped where it is added, so the wrapper sees what it returns; `off` and
 * `listeners` translate between a listener and its wrapper.
 */
export class SettlingEmitter<E extends EventEmitter.ValidEventTypes> extends EventEmitter<E> {
  // What the listeners of the emit under way returned; saved and restored around nested emits.
  #outcomes: unknown[] | undefined;
  readonly #wrappers = new WeakMap<Fn, Fn>();
  readonly #originals = new WeakMap<Fn, Fn>();

  /** Adds a listener of `event` (called with `context` as `this`, when given). */
  override on<T extends Names<E>>(event: T, fn: ListenerOf<E, T>, context?: unknown): this {
    return super.on(event, this.#wrap(fn), context);
  }

  /** Same as {@link on}. */
  override addListener<T extends Names<E>>(event: T, fn: ListenerOf<E, T>, context?: unknown): this {
    return this.on(event, fn, context);
  }

  /** Adds a listener of `event` called once, for the next emit only. */
  override once<T extends Names<E>>(event: T, fn: ListenerOf<E, T>, context?: unknown): this {
    return super.once(event, this.#wrap(fn), context);
  }

  /** Removes a listener of `event` (all of them without `fn`). */
  override off<T extends Names<E>>(event: T, fn?: ListenerOf<E, T>, context?: unknown, once?: boolean): this {
    const wrapper = fn && (this.#wrappers.get(fn as Fn) as ListenerOf<E, T> | undefined);
    return super.removeListener(event, wrapper ?? fn, context, once);
  }

  /** Same as {@link off}. */
  override removeListener<T extends Names<E>>(
    event: T,
    fn?: ListenerOf<E, T>,
    context?: unknown,
    once?: boolean,
  ): this {
    return this.off(event, fn, context, once);
  }

  /** The listeners of `event`, as they were added. */
  override listeners<T extends Names<E>>(event: T): ListenerOf<E, T>[] {
    return super.listeners(event).map((w) => (this.#originals.get(w as Fn) ?? w) as ListenerOf<E, T>);
  }

  /**
   * Emits `event` and waits for its listeners. Resolves (never rejects) with the failures: the
   * error each listener threw or rejected with, empty when all succeeded.
   */
  async emitSettled<T extends Names<E>>(event: T, ...args: EventEmitter.EventArgs<E, T>): Promise<unknown[]> {
    if (this.listenerCount(event) === 0) return NONE;
    const outcomes: unknown[] = [];
    const outer = this.#outcomes;
    this.#outcomes = outcomes;
    try {
      super.emit(event, ...args);
    } finally {
      this.#outcomes = outer;
    }
    // Listeners that returned no promise (the common, synchronous case) need no waiting.
    if (!outcomes.some(isThenable)) return NONE;
    const settled = await Promise.allSettled(outcomes);
    return settled.flatMap((s) => (s.status === 'rejected' ? [s.reason] : []));
  }

  #wrap<F>(fn: F): F {
    const listener = fn as Fn;
    const known = this.#wrappers.get(listener);
    if (known) return known as F;
    const emitter = this;
    const wrapper = function (this: unknown, ...args: never[]): void {
      let outcome: unknown;
      try {
        outcome = listener.apply(this, args);
      } catch (error) {
        outcome = Promise.reject(error);
      }
      // Outside emitSettled (a plain emit) a rejection is still caught, never left unhandled.
      if (emitter.#outcomes) emitter.#outcomes.push(outcome);
      else if (outcome instanceof Promise) outcome.catch(() => {});
    };
    this.#wrappers.set(listener, wrapper);
    this.#originals.set(wrapper, listener);
    return wrapper as F;
  }
}
