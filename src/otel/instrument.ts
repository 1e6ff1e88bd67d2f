import { AsyncLocalStorage } from 'node:async_hooks';
import { tracingChannel } from 'node:diagnostics_channel';
import {
  type Attributes,
  context,
  type Meter,
  type MeterProvider,
  metrics,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { BoundedMap } from '../internal/bounded-map.js';
import { VERSION } from '../version.js';

/** Options of {@link instrument}. */
export interface InstrumentOptions {
  /** Where the spans go. @default the global tracer provider of `@opentelemetry/api` */
  tracerProvider?: TracerProvider;
  /** Where the metrics go. @default the global meter provider of `@opentelemetry/api` */
  meterProvider?: MeterProvider;
}

/** Stops what {@link instrument} started: no span or metric is made after it. */
export type StopInstrumenting = () => void;

/** The semantic conventions followed (messaging and HTTP). */
export const SEMCONV_VERSION = '1.37.0';
const SYSTEM = 'messaging_gateway';
/** Sends remembered for the span link of their status deliveries. */
const MAX_SENDS = 10_000;
/** A limiter wait shorter than this makes no span. */
const WAIT_SPAN_MS = 1;

type Context = Record<string, unknown>;
const none = () => {};
const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
const num = (value: unknown) => (typeof value === 'number' ? value : undefined);
const errorType = (ctx: Context) => {
  const error = ctx.error as { name?: unknown } | undefined;
  if (error) return text(error.name) ?? 'Error';
  const status = num(ctx.status);
  return status !== undefined && status >= 400 ? String(status) : undefined;
};

/**
 * Turns the SDK's diagnostics channels into OpenTelemetry spans and metrics: a PRODUCER `send`
 * span per `messages.send`, a CLIENT span per other call, a CLIENT span per HTTP attempt (with
 * `http.request.resend_count` on retries and a W3C `traceparent` header on the request), a
 * `ratelimit wait` span when a call waited for the limiter, a CONSUMER `process {event}` span per
 * delivery (linked to the send's span when its status belongs to a send made in this process),
 * and four metrics. Attributes carry ids, methods, paths (phone numbers masked), statuses and
 * outcomes: never a token, key, message text or full phone number.
 * @returns a function that stops it
 */
export function instrument(options: InstrumentOptions = {}): StopInstrumenting {
  const tracer: Tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(
    'messaging-gateway-sdk',
    VERSION,
  );
  const meter: Meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(
    'messaging-gateway-sdk',
    VERSION,
  );
  const dup = (process.env.OTEL_SEMCONV_STABILITY_OPT_IN ?? '').split(',').includes('http/dup');
  const sent = meter.createCounter('messaging.client.sent.messages', {
    description: 'Messages the client attempted to send to the gateway.',
    unit: '{message}',
  });
  const operation = meter.createHistogram('messaging.client.operation.duration', {
    description: 'Duration of a send to the gateway, retries included.',
    unit: 's',
  });
  const processing = meter.createHistogram('messaging.process.duration', {
    description: 'Duration of handling one webhook delivery.',
    unit: 's',
  });
  const outcomes = meter.createCounter('gateway.webhook.outcomes', {
    description: 'Webhook deliveries by outcome row of the handler.',
    unit: '{delivery}',
  });

  const store = new AsyncLocalStorage<Span>();
  const spans = new WeakMap<object, { span: Span; started: number }>();
  const sends = new BoundedMap<string, SpanContext>(MAX_SENDS);
  const parent = () => {
    const span = store.getStore();
    return span ? trace.setSpan(context.active(), span) : context.active();
  };
  const isSend = (ctx: Context) => ctx.method === 'POST' && ctx.path === '/v2/messages';

  const starts: Record<string, (ctx: Context) => Span | undefined> = {
    request: (ctx) => {
      const send = isSend(ctx);
      const attributes: Attributes = send
        ? {
            'messaging.system': SYSTEM,
            'messaging.operation.type': 'send',
            'messaging.operation.name': 'send',
            ...(typeof ctx.channelId === 'string' ? { 'messaging.destination.name': ctx.channelId } : {}),
          }
        : { 'http.request.method': text(ctx.method), 'url.path': text(ctx.path) };
      // `send {chat_type}`: the semantic conventions name a send span by operation and destination kind.
      const chatType = typeof ctx.chatType === 'string' ? ` ${ctx.chatType}` : '';
      const name = send ? `send${chatType}` : `${String(ctx.method)} ${String(ctx.path)}`;
      const kind = send ? SpanKind.PRODUCER : SpanKind.CLIENT;
      return tracer.startSpan(name, { kind, attributes }, parent());
    },
    attempt: (ctx) => {
      const attempt = num(ctx.attempt) ?? 1;
      const attributes: Attributes = {
        'http.request.method': text(ctx.method),
        'url.path': text(ctx.path),
        ...(typeof ctx.url === 'string' ? { 'url.full': ctx.url } : {}),
        ...(attempt > 1 ? { 'http.request.resend_count': attempt - 1 } : {}),
        ...(dup ? { 'http.method': text(ctx.method) } : {}),
      };
      const span = tracer.startSpan(String(ctx.method), { kind: SpanKind.CLIENT, attributes }, parent());
      const sc = span.spanContext();
      if (trace.isSpanContextValid(sc)) {
        ctx.traceparent = `00-${sc.traceId}-${sc.spanId}-0${(sc.traceFlags & 1).toString(16)}`;
      }
      return span;
    },
    webhook: () =>
      tracer.startSpan(
        'process',
        {
          kind: SpanKind.CONSUMER,
          attributes: { 'messaging.system': SYSTEM, 'messaging.operation.type': 'process' },
        },
        parent(),
      ),
    ratelimit: () => undefined,
  };

  const ends: Record<string, (ctx: Context, span: Span | undefined, started: number) => void> = {
    request: (ctx, span) => {
      if (!span) return;
      const status = num(ctx.status);
      const requestId = text(ctx.requestId);
      if (isSend(ctx)) {
        if (requestId) span.setAttribute('messaging.message.id', requestId);
        if (requestId && !ctx.error) sends.set(requestId, span.spanContext());
      }
      if (status !== undefined) span.setAttribute('http.response.status_code', status);
    },
    attempt: (ctx, span) => {
      const status = num(ctx.status);
      if (span && status !== undefined) {
        span.setAttribute('http.response.status_code', status);
        if (dup) span.setAttribute('http.status_code', status);
      }
    },
    ratelimit: (ctx, _span, started) => {
      const waited = performance.now() - started;
      if (waited < WAIT_SPAN_MS) return;
      const span = tracer.startSpan(
        'ratelimit wait',
        {
          kind: SpanKind.INTERNAL,
          startTime: performance.timeOrigin + started,
          attributes: { 'url.path': text(ctx.path) },
        },
        parent(),
      );
      span.end();
    },
    webhook: (ctx, span) => {
      if (!span) return;
      const kind = text(ctx.kind);
      if (kind) span.updateName(`process ${kind}`);
      const attributes: Attributes = {
        'gateway.webhook.api': text(ctx.api),
        'gateway.webhook.event': kind,
        'messaging.batch.message_count': num(ctx.items),
        'gateway.webhook.outcome': text(ctx.outcome),
        'http.response.status_code': num(ctx.status),
      };
      span.setAttributes(attributes);
      for (const id of Array.isArray(ctx.requestIds) ? ctx.requestIds : []) {
        const link = sends.get(String(id));
        if (link) span.addLink({ context: link, attributes: { 'messaging.message.id': String(id) } });
      }
    },
  };

  const record = (name: string, ctx: Context, started: number) => {
    const seconds = (performance.now() - started) / 1000;
    const error = errorType(ctx);
    if (name === 'request' && isSend(ctx)) {
      const attributes: Attributes = {
        'messaging.system': SYSTEM,
        'messaging.operation.name': 'send',
        'messaging.operation.type': 'send',
        ...(error ? { 'error.type': error } : {}),
      };
      sent.add(1, attributes);
      operation.record(seconds, attributes);
    }
    if (name === 'webhook') {
      const attributes: Attributes = {
        'messaging.system': SYSTEM,
        'messaging.operation.name': 'process',
        ...(text(ctx.kind) ? { 'gateway.webhook.event': text(ctx.kind) } : {}),
        ...(error ? { 'error.type': error } : {}),
      };
      processing.record(seconds, attributes);
      outcomes.add(1, { 'gateway.webhook.outcome': text(ctx.outcome) ?? 'unknown' });
    }
  };

  const undo: (() => void)[] = [];
  for (const name of ['request', 'attempt', 'ratelimit', 'webhook']) {
    const channel = tracingChannel(`messaging-gateway-sdk:${name}`);
    const transform = (ctx: object) => {
      const span = starts[name]?.(ctx as Context);
      spans.set(ctx, { span: span as Span, started: performance.now() });
      return span ?? (store.getStore() as Span);
    };
    channel.start.bindStore(store, transform);
    const handlers = {
      start: none,
      end: none,
      asyncStart: none,
      error: none,
      asyncEnd: (message: unknown) => {
        const ctx = message as Context;
        const held = spans.get(ctx);
        if (!held) return;
        spans.delete(ctx);
        ends[name]?.(ctx, held.span, held.started);
        const error = errorType(ctx);
        if (held.span) {
          if (error) {
            held.span.setAttribute('error.type', error);
            held.span.setStatus({ code: SpanStatusCode.ERROR });
          }
          held.span.end();
        }
        record(name, ctx, held.started);
      },
    };
    channel.subscribe(handlers);
    undo.push(() => {
      channel.unsubscribe(handlers);
      channel.start.unbindStore(store);
    });
  }
  return () => {
    for (const u of undo.splice(0)) u();
  };
}
