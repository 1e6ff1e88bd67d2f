import { EventEmitter } from 'eventemitter3';

/** A listener as eventemitter3 stores it. */
interface ListenerRecord {
  fn: (...args: unknown[]) => unknown;
  context: unknown;
  once: boolean;
}

/** No failures (and no listeners): frozen, shared by every call that had none. */
const NONE: readonly never[] = Object.freeze([]);

/** `list` with `item` added, made when there is none yet. */
function added<T>(list: T[] | undefined, item: T): T[] {
  if (!list) return [item];
  list.push(item);
  return list;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/**
 * The listeners of `event`, as eventemitter3 keeps them under its (prefixed) event name: one
 * record, or an array of them. Reading them is what lets a plain function call each listener as
 * `emit` would (its context, `once`) and still see what it returns.
 */
function recordsOf(emitter: EventEmitter, event: string): readonly ListenerRecord[] {
  const events = (
    emitter as unknown as { _events: Record<string, ListenerRecord | ListenerRecord[] | undefined> }
  )._events;
  const stored = events[`${EventEmitter.prefixed || ''}${event}`];
  if (!stored) return NONE;
  // A copy: a listener added while these run waits for the next emit, as with `emit`.
  return Array.isArray(stored) ? stored.slice() : [stored];
}

/**
 * Emits `event` on an eventemitter3 emitter and settles its listeners: every listener runs, in
 * order, with its context, `once` listeners removed (as `emit` does), and what each returns is
 * awaited. Gives the error of each listener that threw or rejected (empty when all succeeded),
 * never throws or rejects, so one failing listener never stops the others and no rejection is
 * left unhandled. When no listener returned a promise (the common, synchronous case) the
 * failures come at once, with no promise made; otherwise a promise of them. A plain function, as
 * octokit's `receive` settles its handlers: the handler and the tracker stay plain emitters.
 */
export function settleListeners(
  emitter: EventEmitter,
  event: string,
  ...args: unknown[]
): readonly unknown[] | Promise<readonly unknown[]> {
  const records = recordsOf(emitter, event);
  if (records.length === 0) return NONE;
  // Made at the first promise or failure: most emits have neither.
  let pending: PromiseLike<unknown>[] | undefined;
  let failures: unknown[] | undefined;
  for (const { fn, context, once } of records) {
    if (once) emitter.removeListener(event, fn, undefined, true);
    try {
      const outcome = fn.apply(context, args);
      if (isThenable(outcome)) pending = added(pending, outcome);
    } catch (error) {
      failures = added(failures, error);
    }
  }
  if (!pending) return failures ?? NONE;
  return Promise.allSettled(pending).then((settled) => {
    for (const result of settled) if (result.status === 'rejected') failures = added(failures, result.reason);
    return failures ?? NONE;
  });
}
