import type { AsyncLocalStorage } from 'node:async_hooks';
import { tracingChannel } from 'node:diagnostics_channel';
import { type Span, SpanStatusCode } from '@opentelemetry/api';
import { type ChannelContext, type ChannelHandler, errorType } from './telemetry.js';

const none = () => {};

/**
 * Subscribes `handler` to the TracingChannel `messaging-gateway-sdk:<name>`: its span is active
 * (in `active`) where the traced work runs, and is ended, marked ERROR with `error.type` when the
 * work failed, once it settled. Returns a function that unsubscribes.
 */
export function subscribeChannel(
  name: string,
  active: AsyncLocalStorage<Span>,
  handler: ChannelHandler,
): () => void {
  const channel = tracingChannel(`messaging-gateway-sdk:${name}`);
  const spans = new WeakMap<object, { span: Span | undefined; started: number }>();
  channel.start.bindStore(active, (message) => {
    const span = handler.start(message as ChannelContext);
    spans.set(message as object, { span, started: performance.now() });
    return span ?? (active.getStore() as Span);
  });
  const handlers = {
    start: none,
    end: none,
    asyncStart: none,
    error: none,
    asyncEnd: (message: unknown) => {
      const ctx = message as ChannelContext;
      const held = spans.get(ctx);
      if (!held) return;
      spans.delete(ctx);
      handler.end(ctx, held.span, held.started);
      if (!held.span) return;
      const error = errorType(ctx);
      if (error) {
        held.span.setAttribute('error.type', error);
        held.span.setStatus({ code: SpanStatusCode.ERROR });
      }
      held.span.end();
    },
  };
  channel.subscribe(handlers);
  return () => {
    channel.unsubscribe(handlers);
    channel.start.unbindStore(active);
  };
}
