import { EventEmitter } from 'eventemitter3';

/** Any listener: what an emitter holds. */
// biome-ignore lint/suspicious/noExplicitAny: listeners of every event shape are held alike
export type AnyListener = (...args: any[]) => unknown;

/** The listener signature of each event, by name. */
export type EventMap<Events> = { [E in keyof Events]: AnyListener };

/**
 * The eventemitter3 emitter that holds an object's listeners, by event name (nothing calls its
 * `emit`: the owner runs what `listeners(event)` returns).
 */
export type Emitter = EventEmitter<string>;

/**
 * What a listener of `E` may be: called with the event's arguments; what it returns is awaited
 * when it is a promise, and otherwise ignored. For several events at once, a listener of each
 * (so one that reads fewer arguments than an event gives still fits them all).
 */
export type ListenerOf<Events extends EventMap<Events>, E extends keyof Events> = {
  [K in E]: (...args: Parameters<Events[K]>) => unknown;
}[E];

/**
 * What a listener added with a `this` or as `once` was added with. The emitter holds a wrapper
 * that calls the user's `listener` with `context` as `this` (and, once, removes itself first), so
 * whoever runs what `emitter.listeners(event)` returns honours both. `off` finds it by these fields.
 */
interface Added {
  listener: AnyListener;
  context: unknown;
  once: boolean;
}

/**
 * Our wrappers, each with what it was added with. Kept here, not as fields of the function: a
 * user's own function may carry a `listener` field (Node's `once` wrappers do) and is not ours.
 */
const wrappers = new WeakMap<AnyListener, Added>();

/** What the emitter's `held` function was added with (itself, without a `this`, when not ours). */
function addedOf(held: AnyListener): Added {
  return wrappers.get(held) ?? { listener: held, context: undefined, once: false };
}

/**
 * The listener methods of an emitter (`on`, `once`, `off` and their aliases, `listenerCount`,
 * `listeners`, `removeAllListeners`, `eventNames`), typed by `Events`, over an eventemitter3
 * emitter that the subclass passes in and keeps, used through its public API only. There is no
 * `emit`: the owner runs its listeners with `settleListeners(emitter.listeners(event), …)`, which
 * awaits each and collects its failures.
 */
export class Listeners<Events extends EventMap<Events>> {
  readonly #emitter: Emitter;

  /** @param emitter the emitter the subclass keeps, to run its listeners. */
  constructor(emitter: Emitter) {
    this.#emitter = emitter;
  }

  /** Adds a listener of `event`, called with `context` as `this`. */
  on<E extends keyof Events>(event: E, fn: ListenerOf<Events, E>, context?: unknown): this {
    this.#emitter.on(nameOf(event), this.#held(event, fn, context, false));
    return this;
  }

  /** The same as `on`. */
  addListener<E extends keyof Events>(event: E, fn: ListenerOf<Events, E>, context?: unknown): this {
    return this.on(event, fn, context);
  }

  /** Adds a listener of `event` that is removed when it runs the first time. */
  once<E extends keyof Events>(event: E, fn: ListenerOf<Events, E>, context?: unknown): this {
    this.#emitter.on(nameOf(event), this.#held(event, fn, context, true));
    return this;
  }

  /**
   * Removes the listeners of `event` that are `fn` (added with `context`, and only `once` ones
   * when `once` is true), or every listener of `event` without `fn`.
   */
  off<E extends keyof Events>(event: E, fn?: ListenerOf<Events, E>, context?: unknown, once?: boolean): this {
    const name = nameOf(event);
    if (fn === undefined) {
      this.#emitter.removeAllListeners(name);
      return this;
    }
    for (const held of this.#emitter.listeners(name)) {
      const entry = addedOf(held);
      const matches =
        entry.listener === fn &&
        (once !== true || entry.once) &&
        (context === undefined || entry.context === context);
      if (matches) this.#emitter.off(name, held);
    }
    return this;
  }

  /** The same as `off`. */
  removeListener<E extends keyof Events>(
    event: E,
    fn?: ListenerOf<Events, E>,
    context?: unknown,
    once?: boolean,
  ): this {
    return this.off(event, fn, context, once);
  }

  /** Removes every listener of `event`, or of every event without one. */
  removeAllListeners(event?: keyof Events): this {
    if (event === undefined) this.#emitter.removeAllListeners();
    else this.#emitter.removeAllListeners(nameOf(event));
    return this;
  }

  /** How many listeners `event` has. */
  listenerCount(event: keyof Events): number {
    return this.#emitter.listenerCount(nameOf(event));
  }

  /** The listeners of `event`, in the order they run. */
  listeners<E extends keyof Events>(event: E): ListenerOf<Events, E>[] {
    return this.#emitter
      .listeners(nameOf(event))
      .map((held) => addedOf(held).listener as ListenerOf<Events, E>);
  }

  /** The events that have listeners. */
  eventNames(): (keyof Events)[] {
    return this.#emitter.eventNames() as (keyof Events)[];
  }

  /** What the emitter holds for `fn`: `fn` itself, or a wrapper when it has a `this` or runs once. */
  #held(event: keyof Events, fn: AnyListener, context: unknown, once: boolean): AnyListener {
    if (context === undefined && !once) return fn;
    const emitter = this.#emitter;
    let ran = false;
    const wrapped = (...args: unknown[]): unknown => {
      if (once) {
        if (ran) return undefined; // taken by two runs at once: only the first calls it
        ran = true;
        emitter.off(nameOf(event), wrapped);
      }
      return fn.apply(context, args);
    };
    wrappers.set(wrapped, { listener: fn, context, once });
    return wrapped;
  }
}

/** An event's name as the emitter keys it: the maps of events are keyed by strings. */
function nameOf(event: PropertyKey): string {
  return String(event);
}

/** A new emitter to hold an object's listeners. */
export function emitterOf(): Emitter {
  return new EventEmitter<string>();
}
