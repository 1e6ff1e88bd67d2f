import { type MeterProvider, metrics, type TracerProvider, trace } from '@opentelemetry/api';
import { BoundedMap } from '../internal/bounded-map.js';
import { VERSION } from '../version.js';
import { attemptHandler } from './attempt.js';
import { subscribeChannel } from './channel.js';
import { ratelimitHandler } from './ratelimit.js';
import { requestHandler } from './request.js';
import type { Telemetry } from './telemetry.js';
import { webhookHandler } from './webhook.js';

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
/** Sends remembered for the span link of their status deliveries. */
const MAX_SENDS = 10_000;

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
  const telemetry: Telemetry = {
    tracer: (options.tracerProvider ?? trace.getTracerProvider()).getTracer('messaging-gateway-sdk', VERSION),
    meter: (options.meterProvider ?? metrics.getMeterProvider()).getMeter('messaging-gateway-sdk', VERSION),
    sends: new BoundedMap(MAX_SENDS),
    dup: (process.env.OTEL_SEMCONV_STABILITY_OPT_IN ?? '').split(',').includes('http/dup'),
  };
  const stops = [
    subscribeChannel('request', requestHandler(telemetry)),
    subscribeChannel('attempt', attemptHandler(telemetry)),
    subscribeChannel('ratelimit', ratelimitHandler(telemetry)),
    subscribeChannel('webhook', webhookHandler(telemetry)),
  ];
  return () => {
    for (const stop of stops.splice(0)) stop();
  };
}
