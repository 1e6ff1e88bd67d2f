import { type Attributes, context, SpanKind } from '@opentelemetry/api';
import {
  type ChannelHandler,
  DURATION_BUCKETS,
  errorType,
  isSend,
  num,
  SYSTEM,
  type Telemetry,
  text,
} from './telemetry.js';

/**
 * `messaging-gateway-sdk:request`, one per call of the client: a PRODUCER `send {chat_type}` span
 * for `messages.send` (remembered by request id for its status deliveries' links) and the
 * messaging metrics of sends; a CLIENT span named by method and path template for any other call.
 */
export function requestHandler(telemetry: Telemetry): ChannelHandler {
  const sent = telemetry.meter.createCounter('messaging.client.sent.messages', {
    description: 'Messages the client attempted to send to the gateway.',
    unit: '{message}',
  });
  const operation = telemetry.meter.createHistogram('messaging.client.operation.duration', {
    description: 'Duration of a send to the gateway, retries included.',
    unit: 's',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  return {
    start(ctx) {
      const send = isSend(ctx);
      const attributes: Attributes = send
        ? {
            'messaging.system': SYSTEM,
            'messaging.operation.type': 'send',
            'messaging.operation.name': 'send',
            ...(typeof ctx.channelId === 'string' ? { 'messaging.destination.name': ctx.channelId } : {}),
          }
        : {
            'http.request.method': text(ctx.method),
            'url.path': text(ctx.path),
            'url.template': text(ctx.route),
          };
      // `send {chat_type}`: the semantic conventions name a send span by operation and destination kind.
      const chatType = typeof ctx.chatType === 'string' ? ` ${ctx.chatType}` : '';
      const name = send ? `send${chatType}` : `${String(ctx.method)} ${String(ctx.route ?? ctx.path)}`;
      const kind = send ? SpanKind.PRODUCER : SpanKind.CLIENT;
      return telemetry.tracer.startSpan(name, { kind, attributes }, context.active());
    },
    end(ctx, span, started) {
      const status = num(ctx.status);
      const requestId = text(ctx.requestId);
      if (span && isSend(ctx)) {
        if (requestId) span.setAttribute('messaging.message.id', requestId);
        if (requestId && !ctx.error) telemetry.sends.set(requestId, span.spanContext());
      }
      if (span && status !== undefined) span.setAttribute('http.response.status_code', status);
      if (!isSend(ctx)) return;
      const error = errorType(ctx);
      const attributes: Attributes = {
        'messaging.system': SYSTEM,
        'messaging.operation.name': 'send',
        'messaging.operation.type': 'send',
        ...(error ? { 'error.type': error } : {}),
      };
      sent.add(1, attributes);
      operation.record((performance.now() - started) / 1000, attributes);
    },
  };
}
