import { context, SpanKind } from '@opentelemetry/api';
import { type ChannelHandler, type Telemetry, text } from './telemetry.js';

/** A limiter wait shorter than this makes no span. */
const WAIT_SPAN_MS = 1;

/**
 * `messaging-gateway-sdk:ratelimit`, one per wait for a slot of the limiter: an INTERNAL
 * `ratelimit wait` span, made once the wait is over and only when it lasted, so a call that did
 * not wait has none.
 */
export function ratelimitHandler(telemetry: Telemetry): ChannelHandler {
  return {
    start: () => undefined,
    end(ctx, _span, started) {
      if (performance.now() - started < WAIT_SPAN_MS) return;
      const span = telemetry.tracer.startSpan(
        'ratelimit wait',
        {
          kind: SpanKind.INTERNAL,
          startTime: performance.timeOrigin + started,
          attributes: { 'url.path': text(ctx.path) },
        },
        context.active(),
      );
      span.end();
    },
  };
}
