/** Any listener: what a map of events holds. */
// biome-ignore lint/suspicious/noExplicitAny: listeners of every event shape are stored alike
export type AnyListener = (...args: any[]) => unknown;

/** The listener signature of each event, by name. */
export type EventMap<Events> = { [E in keyof Events]: AnyListener };

/**
 * What a listener of `E` may be: called with the event's arguments; what it returns is awaited
 * when it is a promise, and otherwise ignored. For several events at once, a listener of each
 * (so one that reads fewer arguments than an event gives still fits them all).
 */
export type ListenerOf<Events extends EventMap<Events>, E extends keyof Events> = {
  [K in E]: (...args: Parameters<Events[K]>) => unknown;
}[E];

/** One registered listener: called with `context` as `this`; a `once` listener is removed when it runs. */
export interface ListenerEntry {
  fn: AnyListener;
  context: unknown;
  once: boolean;
}

const NONE: readonly ListenerEntry[] = Object.freeze([]);

/**
 * The listeners of each event, in the order they were added. Each event's list is replaced, never
 * changed in place, so a list taken for one run stays as it was while listeners are added or
 * removed during it (as an emitter's `emit` does).
 */
export class ListenerMap<Events extends EventMap<Events>> {
  readonly #byEvent = new Map<keyof Events, readonly ListenerEntry[]>();

  /** Adds a listener at the end of `event`'s list. */
  add(event: keyof Events, fn: AnyListener, context: unknown, once: boolean): void {
    this.#byEvent.set(event, [...this.entries(event), { fn, context, once }]);
  }

  /**
   * Removes `event`'s listeners that are `fn` (with `context`, and only `once` ones, when given),
   * or all of them without `fn`.
   */
  remove(event: keyof Events, fn?: AnyListener, context?: unknown, once?: boolean): void {
    const kept = this.entries(event).filter(
      (entry) =>
        fn !== undefined &&
        (entry.fn !== fn ||
          (once === true && !entry.once) ||
          (context !== undefined && entry.context !== context)),
    );
    if (kept.length > 0) this.#byEvent.set(event, kept);
    else this.#byEvent.delete(event);
  }

  /** Forgets every listener of every event. */
  clear(): void {
    this.#byEvent.clear();
  }

  /** The listeners of `event`, as they are now. */
  entries(event: keyof Events): readonly ListenerEntry[] {
    return this.#byEvent.get(event) ?? NONE;
  }

  /** The events that have listeners. */
  events(): (keyof Events)[] {
    return [...this.#byEvent.keys()];
  }

  /** The listeners to run for one emission of `event`; its `once` listeners are removed from the map. */
  take(event: keyof Events): readonly ListenerEntry[] {
    const entries = this.entries(event);
    if (entries.some((entry) => entry.once)) {
      const kept = entries.filter((entry) => !entry.once);
      if (kept.length > 0) this.#byEvent.set(event, kept);
      else this.#byEvent.delete(event);
    }
    return entries;
  }
}

/**
 * The listener methods of an emitter (`on`, `once`, `off` and their aliases, `listenerCount`,
 * `listeners`, `removeAllListeners`), typed by `Events`, over a {@link ListenerMap} its subclass
 * passes in and keeps. There is no `emit`: the owner runs its listeners with `settleListeners`,
 * which awaits each and collects its failures.
 */
export class Listeners<Events extends EventMap<Events>> {
  readonly #map: ListenerMap<Events>;

  /** @param map the map the subclass keeps, to run its listeners. */
  constructor(map: ListenerMap<Events>) {
    this.#map = map;
  }

  /** Adds a listener of `event`, called with `context` as `this`. */
  on<E extends keyof Events>(event: E, fn: ListenerOf<Events, E>, context?: unknown): this {
    this.#map.add(event, fn, context, false);
    return this;
  }

  /** The same as `on`. */
  addListener<E extends keyof Events>(event: E, fn: ListenerOf<Events, E>, context?: unknown): this {
    return this.on(event, fn, context);
  }

  /** Adds a listener of `event` that is removed when it runs the first time. */
  once<E extends keyof Events>(event: E, fn: ListenerOf<Events, E>, context?: unknown): this {
    this.#map.add(event, fn, context, true);
    return this;
  }

  /**
   * Removes the listeners of `event` that are `fn` (added with `context`, and only `once` ones
   * when `once` is true), or every listener of `event` without `fn`.
   */
  off<E extends keyof Events>(event: E, fn?: ListenerOf<Events, E>, context?: unknown, once?: boolean): this {
    this.#map.remove(event, fn, context, once);
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
    if (event === undefined) this.#map.clear();
    else this.#map.remove(event);
    return this;
  }

  /** How many listeners `event` has. */
  listenerCount(event: keyof Events): number {
    return this.#map.entries(event).length;
  }

  /** The listeners of `event`, in the order they run. */
  listeners<E extends keyof Events>(event: E): ListenerOf<Events, E>[] {
    return this.#map.entries(event).map((entry) => entry.fn);
  }

  /** The events that have listeners. */
  eventNames(): (keyof Events)[] {
    return this.#map.events();
  }
}
