import { GatewayError } from '../core/errors.js';
import type { SqlSession } from './sql-driver.js';

/** Why a transaction handle refused a call: its transaction had ended. */
const ENDED =
  "tx was used after its transaction ended (its time limit passed, its connection was lost, or the listener or responder had returned): nothing written through it would have been part of the delivery's transaction";

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
  readonly #wrapped = new Map<PropertyKey, unknown>();

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
   * The driver's handle (a pg client, postgres.js's `sql` of `begin`, a PGlite transaction) whose
   * methods, and itself when it is a function, throw once the fence is closed.
   */
  handle<T>(handle: T): T {
    if ((typeof handle !== 'object' && typeof handle !== 'function') || handle === null) return handle;
    const check = () => {
      if (!this.#open) throw new GatewayError(ENDED);
    };
    const wrapped = this.#wrapped;
    return new Proxy(handle as object, {
      apply(target, thisArg, args) {
        check();
        return Reflect.apply(target as (...a: unknown[]) => unknown, thisArg, args);
      },
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        let method = wrapped.get(property);
        if (!method) {
          method = (...args: unknown[]) => {
            check();
            return Reflect.apply(value as (...a: unknown[]) => unknown, target, args);
          };
          wrapped.set(property, method);
        }
        return method;
      },
    }) as T;
  }
}
