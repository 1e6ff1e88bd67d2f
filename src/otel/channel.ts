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
  // What ends the span is kept on the context itself, under a key only this subscription holds
  // (two instrument() at once each keep their own), so nothing outlives the delivery in a table
  // of ours. It is a closure, not the span: the context goes to every subscriber, the user's own
  // too, which would otherwise print or spread our live span.
  const held = Symbol(name);
  type Held = ChannelContext & { [held]?: () => void };
  const finish = (ctx: ChannelContext, span: Span | undefined, started: number) => {
    handler.end(ctx, span, started);
    if (!span) return;
    const error = errorType(ctx);
    if (error) {
      span.setAttribute('error.type', error);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };
  // Only the two events it acts on: the others are then never published to anyone.
  const start = (message: unknown) => {
    const ctx = message as Held;
    const span = handler.start(ctx);
    const started = performance.now();
    ctx[held] = () => finish(ctx, span, started);
    if (span) {
      const active = trace.setSpan(context.active(), span);
      ctx.enter = <T>(work: () => T): T => context.with(active, work);
    }
  };
  const asyncEnd = (message: unknown) => {
    const ctx = message as Held;
    const end = ctx[held];
    if (!end) return;
    ctx[held] = undefined;
    end();
  };
  channel.start.subscribe(start);
  channel.asyncEnd.subscribe(asyncEnd);
  return () => {
    channel.start.unsubscribe(start);
    channel.asyncEnd.unsubscribe(asyncEnd);
  };
}
