import { GatewayError } from '../core/errors.js';
import type { SqlSession } from './sql-driver.js';

/** Why a transaction handle refused a call: its transaction had ended. */
const ENDED =
  "tx was used after its transaction ended (its time limit passed, its connection was lost, or the listener or responder had returned): nothing written through it would have been part of the delivery's transaction";

/** Why `tx.commit()` is refused: the store ends the transaction. */
const COMMIT =
  "tx.commit() was called by a listener or responder: the store commits tx itself once they return (a commit of your own would keep your writes without the delivery's record, and the delivery would run again)";

/** The methods that hand a nested transaction (a savepoint) to a callback: Drizzle's and Knex's `transaction`, postgres.js's `savepoint`. */
const NESTING: ReadonlySet<PropertyKey> = new Set(['transaction', 'savepoint']);

/**
 * Closes a transaction to its listeners and responders once the store's work in it ended, or the
 * driver gave it up: the `tx` they were given (and the store's own queries in their async
 * context) refuse every call from then on. A listener or responder past its time limit still
 * holds `tx`, and a write through it after the rollback would run on the same connection outside
 * any transaction (committed at once) or inside the next one opened there, while its delivery is
 * tried again: the CRM would store it twice.
 */
export class Fence {
  #open = true;
  /** The handle given to {@link handle}: its own `commit` is refused. */
  #root: unknown;
  /** The fenced view of each object reached through the handle, made once. */
  readonly #views = new WeakMap<object, object>();
  /** The fenced form of each method, per object it was read from. */
  readonly #methods = new WeakMap<object, Map<PropertyKey, { of: unknown; fenced: unknown }>>();

  /** Whether the transaction is still the store's to use (not yet closed). */
  get open(): boolean {
    return this.#open;
  }

  /** From now on, every call through {@link session} or {@link handle} fails. */
  close(): void {
    this.#open = false;
  }

  /** `tx` that refuses statements once the fence is closed. */
  session(tx: SqlSession): SqlSession {
    return {
      query: (text, params) =>
        this.#open ? tx.query(text, params) : Promise.reject(new GatewayError(ENDED)),
    };
  }

  /**
   * The driver's or ORM's handle (a pg client, postgres.js's `sql` of `begin`, a PGlite
   * transaction, Prisma's `tx`, Drizzle's `tx`, Kysely's or Knex's `trx`) whose methods, and
   * itself when it is a function, throw once the fence is closed. What they return (a query
   * builder, a model's delegate, a lazy promise) is fenced the same way, so a builder made in
   * time but run later (Drizzle's, Knex's and Prisma's run on `await`, Kysely's on `execute()`)
   * is refused too; what a promise resolves to (rows, a created model) is the caller's, as is.
   * A nested transaction's handle, given to the callback of `tx.transaction(…)` or
   * `tx.savepoint(…)`, is fenced the same way (else a listener past its time-out wrote through it
   * outside any transaction). The handle's own `commit()` (Knex's `trx.commit()`) always throws:
   * the store commits.
   */
  handle<T>(handle: T): T {
    this.#root = handle;
    return this.#view(handle) as T;
  }

  #check(): void {
    if (!this.#open) throw new GatewayError(ENDED);
  }

  #view(value: unknown): unknown {
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return value;
    const target = value as object;
    let view = this.#views.get(target);
    if (!view) {
      view = new Proxy(target, {
        apply: (fn, thisArg, args) => {
          this.#check();
          return this.#view(Reflect.apply(fn as (...a: unknown[]) => unknown, thisArg, args));
        },
        get: (object, property) => this.#member(object, property),
      });
      this.#views.set(target, view);
    }
    return view;
  }

  /** A member read through a fenced object: a method fenced, an object fenced, anything else as is. */
  #member(object: object, property: PropertyKey): unknown {
    const value: unknown = Reflect.get(object, property, object);
    // A proxy must return a frozen own property as it is; a constructor keeps its statics.
    const own = Reflect.getOwnPropertyDescriptor(object, property);
    if (property === 'constructor' || (own && !own.configurable && !own.writable)) return value;
    if (typeof value !== 'function') return this.#view(value);
    let methods = this.#methods.get(object);
    if (!methods) {
      methods = new Map();
      this.#methods.set(object, methods);
    }
    const known = methods.get(property);
    if (known?.of === value) return known.fenced;
    const commit = object === this.#root && property === 'commit';
    const nesting = NESTING.has(property);
    const fenced = (...args: unknown[]) => {
      if (commit) throw new GatewayError(COMMIT);
      this.#check();
      const given = nesting ? args.map((arg) => this.#fencingArguments(arg)) : args;
      return this.#view(Reflect.apply(value as (...a: unknown[]) => unknown, object, given));
    };
    methods.set(property, { of: value, fenced });
    return fenced;
  }

  /**
   * A callback given to a nesting method, called with the fenced view of what it is given (the
   * nested handle). Once the fence closed, its promise never settles: the ORM would answer it with
   * the savepoint's RELEASE or ROLLBACK TO, sent on a connection the transaction gave up, which may
   * by then be in another delivery's transaction.
   */
  #fencingArguments(arg: unknown): unknown {
    if (typeof arg !== 'function') return arg;
    return async (...inner: unknown[]) => {
      try {
        return await Reflect.apply(
          arg,
          undefined,
          inner.map((value) => this.#view(value)),
        );
      } finally {
        if (!this.#open) await new Promise(() => {});
      }
    };
  }
}
