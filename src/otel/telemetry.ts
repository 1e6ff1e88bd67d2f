import type { Meter, Span, SpanContext, Tracer } from '@opentelemetry/api';
import type { BoundedMap } from '../internal/bounded-map.js';

/** What the SDK publishes on a channel: its context object (see core/diagnostics.ts). */
export type ChannelContext = Record<string, unknown>;

/** How one diagnostics channel becomes spans and metrics. */
export interface ChannelHandler {
  /** At the start of the traced work: the span to make active there, if any. */
  start(ctx: ChannelContext): Span | undefined;
  /** Once the work settled, before its span ends (error status and end are the caller's). */
  end(ctx: ChannelContext, span: Span | undefined, started: number): void;
}

/** What the channels' handlers share. */
export interface Telemetry {
  tracer: Tracer;
  meter: Meter;
  /** Request ids of sends made in this process → their span, for the status deliveries' links. */
  sends: BoundedMap<string, SpanContext>;
  /** OTEL_SEMCONV_STABILITY_OPT_IN holds `http/dup`: the old HTTP attribute names as well. */
  dup: boolean;
}

/** `messaging.system` of every messaging span and metric. */
export const SYSTEM = 'messaging_gateway';

export const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
export const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/** `error.type`: the error's name, else an HTTP status of 400 or more, else none. */
export function errorType(ctx: ChannelContext): string | undefined {
  const error = ctx.error as { name?: unknown } | undefined;
  if (error) return text(error.name) ?? 'Error';
  const status = num(ctx.status);
  return status !== undefined && status >= 400 ? String(status) : undefined;
}

/** `messages.send`: the call that makes a PRODUCER span and counts as a sent message. */
export const isSend = (ctx: ChannelContext): boolean => ctx.method === 'POST' && ctx.path === '/v2/messages';

/**
 * Bucket boundaries, in seconds, of the duration histograms: those the semantic conventions
 * advise for HTTP and messaging durations (the SDK's default boundaries are for milliseconds).
 */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
