import { maskPhones } from './logger.js';

/**
 * The SDK's TracingChannels on `node:diagnostics_channel`: `messaging-gateway-sdk:request`,
 * `:attempt`, `:ratelimit` and `:webhook`. Loaded through `process.getBuiltinModule`, so a
 * runtime without the module (or without `process`) simply publishes nothing. Nothing is built
 * unless a channel has subscribers.
 */
interface Publisher {
  publish(message: unknown): void;
  runStores<T>(message: unknown, fn: () => T): T;
}
interface Channel {
  readonly hasSubscribers?: boolean;
  start: Publisher;
  end: Publisher;
  asyncStart: Publisher;
  asyncEnd: Publisher;
  error: Publisher;
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
 * What a subscriber may set on a context at its `start`: a function that runs the traced work
 * inside the subscriber's own context (OpenTelemetry's `context.with`), so that what the work
 * starts (the user's listener, the HTTP attempt's fetch) nests under the subscriber's span.
 */
export type Enter = <T>(work: () => T) => T;

/**
 * Runs `work`, traced on `channel` when someone listens: the context is built only then, and
 * `work` may add its end facts to it. Without subscribers this is one property read. Unlike
 * `tracePromise`, the resolved value is never put on the context: it holds message data.
 * Stores bound to `start` (an AsyncLocalStorage) hold for the whole of `work`, and so does the
 * context of an {@link Enter} function a subscriber set as `enter`. Work whose effects go on
 * past its result sets `after` on the context to the promise of their end: the trace ends (the
 * end events are published) once both are done.
 */
export function traced<C extends object, T>(
  channel: Channel | undefined,
  build: () => C,
  work: (context?: C) => Promise<T>,
): Promise<T> {
  if (!channel?.hasSubscribers) return work();
  const c = build() as C & { error?: unknown; enter?: unknown; after?: Promise<unknown> };
  const end = () => {
    channel.asyncStart.publish(c);
    channel.asyncEnd.publish(c);
  };
  return channel.start.runStores(c, () => {
    const enter = typeof c.enter === 'function' ? (c.enter as Enter) : undefined;
    const running = enter ? enter(() => work(c)) : work(c);
    // Attached outside `enter`: the end is told in the caller's context, as it began.
    const promise = running.then(
      (value) => {
        // Work that goes on past the result (listeners after a webhook's answer) ends the trace.
        if (c.after) c.after.then(end, end);
        else end();
        return value;
      },
      (error: unknown) => {
        c.error = error;
        channel.error.publish(c);
        end();
        throw error;
      },
    );
    channel.end.publish(c);
    return promise;
  });
}

/** A path as contexts carry it: full phone numbers masked, as in the logs. */
export const safePath = (path: string): string => maskPhones(path);

/** Known paths with an id in them, and the template that stands for them in span names. */
const ROUTES: [RegExp, string][] = [
  [/^\/v2\/channels\/[^/]+/, '/v2/channels/{channel_id}'],
  [/^\/v2\/messages\/(?!messages_dump$)[^/]+/, '/v2/messages/{message_id}'],
];

/**
 * The path template of a call (`/v2/channels/{channel_id}/reinit`): what names its spans, so
 * that there is one name per operation, not one per channel or message.
 */
export function routeOf(path: string): string {
  for (const [pattern, template] of ROUTES) if (pattern.test(path)) return path.replace(pattern, template);
  return path;
}
