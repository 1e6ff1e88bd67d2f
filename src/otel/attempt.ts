import { type Attributes, context, SpanKind, trace } from '@opentelemetry/api';
import { type ChannelHandler, num, type Telemetry, text } from './telemetry.js';

/**
 * `messaging-gateway-sdk:attempt`, one per HTTP attempt: a CLIENT span under its call's span,
 * with `http.request.resend_count` on retries, and its W3C `traceparent` handed back on the
 * context for the request's headers.
 */
export function attemptHandler(telemetry: Telemetry): ChannelHandler {
  const { dup } = telemetry;
  return {
    start(ctx) {
      const attempt = num(ctx.attempt) ?? 1;
      const attributes: Attributes = {
        'http.request.method': text(ctx.method),
        'url.path': text(ctx.path),
        'url.template': text(ctx.route),
        ...serverOf(ctx.url),
        ...(attempt > 1 ? { 'http.request.resend_count': attempt - 1 } : {}),
        ...(dup ? { 'http.method': text(ctx.method) } : {}),
      };
      const span = telemetry.tracer.startSpan(
        String(ctx.method),
        { kind: SpanKind.CLIENT, attributes },
        context.active(),
      );
      const sc = span.spanContext();
      if (trace.isSpanContextValid(sc)) {
        ctx.traceparent = `00-${sc.traceId}-${sc.spanId}-0${(sc.traceFlags & 1).toString(16)}`;
      }
      return span;
    },
    end(ctx, span) {
      const status = num(ctx.status);
      if (span && status !== undefined) {
        span.setAttribute('http.response.status_code', status);
        if (dup) span.setAttribute('http.status_code', status);
      }
    },
  };
}

/** `url.full`, `server.address` and `server.port` of an attempt's address (which holds no query). */
function serverOf(url: unknown): Attributes {
  if (typeof url !== 'string') return {};
  try {
    const { hostname, port, protocol } = new URL(url);
    const defaultPort = protocol === 'http:' ? 80 : 443;
    return { 'url.full': url, 'server.address': hostname, 'server.port': port ? Number(port) : defaultPort };
  } catch {
    return { 'url.full': url };
  }
}
