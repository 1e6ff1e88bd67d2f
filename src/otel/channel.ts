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
  // The span is kept on the context itself, under a key only this subscription holds (two
  // instrument() at once each keep their own): a WeakMap entry per delivery, which the garbage
  // collector must trace as an ephemeron, cost more than the rest of the start.
  const held = Symbol(name);
  type Held = ChannelContext & { [held]?: { span: Span | undefined; started: number } };
  // Only the two events it acts on: the others are then never published to anyone.
  const start = (message: unknown) => {
    const ctx = message as Held;
    const span = handler.start(ctx);
    ctx[held] = { span, started: performance.now() };
    if (span) {
      const active = trace.setSpan(context.active(), span);
      ctx.enter = <T>(work: () => T): T => context.with(active, work);
    }
  };
  const asyncEnd = (message: unknown) => {
    const ctx = message as Held;
    const kept = ctx[held];
    if (!kept) return;
    ctx[held] = undefined;
    handler.end(ctx, kept.span, kept.started);
    if (!kept.span) return;
    const error = errorType(ctx);
    if (error) {
      kept.span.setAttribute('error.type', error);
      kept.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    kept.span.end();
  };
  channel.start.subscribe(start);
  channel.asyncEnd.subscribe(asyncEnd);
  return () => {
    channel.start.unsubscribe(start);
    channel.asyncEnd.unsubscribe(asyncEnd);
  };
}
