import { tracingChannel } from 'node:diagnostics_channel';
import { context, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { type ChannelContext, type ChannelHandler, errorType } from './telemetry.js';

/**
 * Subscribes `handler` to the TracingChannel `messaging-gateway-sdk:<name>`: its span is the
 * active OpenTelemetry context (`context.with`) where the traced work runs, so the user's spans
 * and those of auto-instrumented libraries nest under it; it is ended, marked ERROR with
 * `error.type` when the work failed, once it settled. Returns a function that unsubscribes.
 */
export function subscribeChannel(name: string, handler: ChannelHandler): () => void {
  const channel = tracingChannel(`messaging-gateway-sdk:${name}`);
  const spans = new WeakMap<object, { span: Span | undefined; started: number }>();
  // Only the two events it acts on: the others are then never published to anyone.
  const start = (message: unknown) => {
    const ctx = message as ChannelContext;
    const span = handler.start(ctx);
    spans.set(ctx, { span, started: performance.now() });
    if (span) {
      const active = trace.setSpan(context.active(), span);
      ctx.enter = <T>(work: () => T): T => context.with(active, work);
    }
  };
  const asyncEnd = (message: unknown) => {
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
  };
  channel.start.subscribe(start);
  channel.asyncEnd.subscribe(asyncEnd);
  return () => {
    channel.start.unsubscribe(start);
    channel.asyncEnd.unsubscribe(asyncEnd);
  };
}
