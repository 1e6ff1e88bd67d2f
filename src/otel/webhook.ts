import { type Attributes, context, SpanKind, type SpanOptions } from '@opentelemetry/api';
import {
  type ChannelHandler,
  DURATION_BUCKETS,
  errorType,
  num,
  SYSTEM,
  type Telemetry,
  text,
} from './telemetry.js';

/** How every `process` span starts: its name and these attributes are all that is known then. */
const PROCESS_SPAN: SpanOptions = {
  kind: SpanKind.CONSUMER,
  attributes: {
    'messaging.system': SYSTEM,
    'messaging.operation.type': 'process',
    'messaging.operation.name': 'process',
  },
};

/**
 * `messaging-gateway-sdk:webhook`, one per delivery handled or received: a CONSUMER
 * `process {event}` span with the outcome row and the status answered, linked to the span of each
 * send of this process whose status it carries; `messaging.process.duration` and the outcome
 * counter. A request answered before it was admitted (`admitted: false`: refused, or the v3
 * probe) processed nothing: it is only counted under its outcome row, so a secret that stopped
 * matching shows on a dashboard.
 */
export function webhookHandler(telemetry: Telemetry): ChannelHandler {
  const processing = telemetry.meter.createHistogram('messaging.process.duration', {
    description: 'Duration of handling one webhook delivery.',
    unit: 's',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const outcomes = telemetry.meter.createCounter('gateway.webhook.outcomes', {
    description: 'Webhook deliveries by outcome row of the handler.',
    unit: '{delivery}',
  });
  return {
    start: (ctx) =>
      ctx.admitted === false
        ? undefined
        : telemetry.tracer.startSpan('process', PROCESS_SPAN, context.active()),
    end(ctx, span, started) {
      outcomes.add(1, { 'gateway.webhook.outcome': text(ctx.outcome) ?? 'unknown' });
      if (ctx.admitted === false) return;
      const kind = text(ctx.kind);
      if (span) {
        if (kind) span.updateName(`process ${kind}`);
        span.setAttributes({
          'gateway.webhook.api': text(ctx.api),
          'gateway.webhook.event': kind,
          'messaging.batch.message_count': num(ctx.items),
          'gateway.webhook.outcome': text(ctx.outcome),
          'http.response.status_code': num(ctx.status),
        });
        for (const id of Array.isArray(ctx.requestIds) ? ctx.requestIds : []) {
          const link = telemetry.sends.get(String(id));
          if (link) span.addLink({ context: link, attributes: { 'messaging.message.id': String(id) } });
        }
      }
      const error = errorType(ctx);
      const attributes: Attributes = { 'messaging.system': SYSTEM, 'messaging.operation.name': 'process' };
      if (kind) attributes['gateway.webhook.event'] = kind;
      if (error) attributes['error.type'] = error;
      processing.record((performance.now() - started) / 1000, attributes);
    },
  };
}
