import { maskPhones } from './logger.js';

/**
 * The SDK's TracingChannels on `node:diagnostics_channel`: `messaging-gateway-sdk:request`,
 * `:attempt`, `:ratelimit` and `:webhook`. Loaded through `process.getBuiltinModule`, so a
 * runtime without the module (or without `process`) simply publishes nothing. Nothing is built
 * unless a channel has subscribers.
 */
interface Channel {
  readonly hasSubscribers?: boolean;
  tracePromise<T>(fn: () => Promise<T>, context: object): Promise<T>;
}

type Loader = { getBuiltinModule?: (id: string) => unknown };
const dc = (globalThis as { process?: Loader }).process?.getBuiltinModule?.('node:diagnostics_channel') as
  | { tracingChannel?: (name: string) => Channel }
  | undefined;
const open = (name: string) => dc?.tracingChannel?.(`messaging-gateway-sdk:${name}`);

/** The four channels; undefined where the runtime has none. */
export const channels = {
  request: open('request'),
  attempt: open('attempt'),
  ratelimit: open('ratelimit'),
  webhook: open('webhook'),
};

/**
 * Runs `work`, traced on `channel` when someone listens: the context is built only then, and
 * `work` may add its end facts to it. Without subscribers this is one property read.
 */
export function traced<C extends object, T>(
  channel: Channel | undefined,
  build: () => C,
  work: (context: C | undefined) => Promise<T>,
): Promise<T> {
  if (!channel?.hasSubscribers) return work(undefined);
  const context = build();
  return channel.tracePromise(() => work(context), context);
}

/** A path as contexts carry it: full phone numbers masked, as in the logs. */
export const safePath = (path: string): string => maskPhones(path);
