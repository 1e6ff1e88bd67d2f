/**
 * Deliveries as a handler decodes them, before any dispatch, for code of the SDK that needs to
 * see them whatever the handler's `dispatch` (the client's `channels.connect` flow), without
 * a method on the handler's public type. Keyed by the handler object, so a handler that is
 * collected takes its watchers with it. Imports nothing: the client stays free of the decoder.
 *
 * The registry is one per process, not per copy of this module: an application that imports the
 * client as ESM and requires the webhooks as CommonJS (or holds two installed versions) has two
 * copies, and the flow of one must still hear the handler of the other.
 * @module
 */

/** Reports a problem with a delivery on the handler's `'error'`. */
export type ReportProblem = (error: Error) => void;

/** Hears one decoded delivery of a handler; must not throw. */
export type DecodedWatcher = (webhook: unknown, report: ReportProblem) => void;

const REGISTRY = Symbol.for('messaging-gateway-sdk.decoded-deliveries');
const holder = globalThis as { [REGISTRY]?: WeakMap<object, Set<DecodedWatcher>> };
holder[REGISTRY] ??= new WeakMap();
const watchers = holder[REGISTRY];

/** Starts hearing the deliveries `handler` decodes; returns what stops it. */
export function watchDecoded(handler: object, watcher: DecodedWatcher): () => void {
  const set = watchers.get(handler) ?? new Set<DecodedWatcher>();
  watchers.set(handler, set);
  set.add(watcher);
  return () => set.delete(watcher);
}

/** Tells the watchers of `handler` of a delivery it decoded. */
export function notifyDecoded(handler: object, webhook: unknown, report: ReportProblem): void {
  const set = watchers.get(handler);
  if (!set) return;
  for (const watcher of set) watcher(webhook, report);
}
