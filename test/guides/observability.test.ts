// docs/observability.md run as written: the diagnostics channel subscriber against the fake
// gateway, and the OTLP set-up with the receiver whose listener starts a span, exporting to a
// real OTLP/HTTP receiver on 127.0.0.1.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { buildWebhook } from '../../src/testing.js';
import { listen } from '../support/servers.js';
import { BLOCK_RUN_TIMEOUT_MS, useGuide, WEBHOOK_SECRET } from './guide.js';

const guide = useGuide('docs/observability.md', { gateway: true });

/** A span as OTLP/JSON carries it (ids in hex). */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
}

/** OTLP's SpanKind: 5 is CONSUMER. */
const CONSUMER = 5;

/** An OTLP/HTTP receiver (the JSON encoding the `-otlp-http` exporters send): what it was sent. */
async function otlpReceiver() {
  const spans: OtlpSpan[] = [];
  const metrics: string[] = [];
  const contentTypes = new Set<string>();
  const read = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  const server = await listen(async (req, res) => {
    contentTypes.add(String(req.headers['content-type']));
    const body = JSON.parse(await read(req));
    if (req.url === '/v1/traces') {
      for (const resource of body.resourceSpans ?? [])
        for (const scope of resource.scopeSpans ?? []) spans.push(...scope.spans);
    }
    if (req.url === '/v1/metrics') {
      for (const resource of body.resourceMetrics ?? [])
        for (const scope of resource.scopeMetrics ?? [])
          for (const metric of scope.metrics ?? []) metrics.push(metric.name);
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  return { ...server, spans, metrics, contentTypes };
}

describe('docs/observability.md', () => {
  it('the channels: a subscriber of messaging-gateway-sdk:request prints each call; instrument() alone starts and stops', {
    timeout: BLOCK_RUN_TIMEOUT_MS,
  }, async () => {
    const { code, stdout, stderr } = await guide.run(['The channels', 'OpenTelemetry: `instrument()`']);
    expect([code, stderr]).toEqual([0, '']);
    expect(stdout).toBe('GET /v2/channels 200\n');
  });

  it("OTLP: a listener's span arrives at the collector nested under the SDK's process span; SIGTERM flushes the metrics and exits 0", {
    timeout: BLOCK_RUN_TIMEOUT_MS,
  }, async () => {
    const collector = await otlpReceiver();
    try {
      const blocks = await guide.start(
        ['Example: OTLP to any backend', "Spans nest in yours, and yours in the SDK's"],
        {
          // A short batch delay, so the test sees the spans without waiting the default 5 s.
          env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '50' },
        },
      );
      await blocks.evaluated;
      const answer = await fetch(`http://127.0.0.1:${blocks.port}/hooks?secret=${WEBHOOK_SECRET}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(buildWebhook('message.add')),
      });
      expect(answer.status).toBe(200);
      await expect
        .poll(() => collector.spans.map((span) => span.name).sort(), { timeout: 30_000 })
        .toEqual(['process message.add', 'store messages']);
      const processing = collector.spans.find((span) => span.name === 'process message.add');
      const stored = collector.spans.find((span) => span.name === 'store messages');
      expect(processing?.kind).toBe(CONSUMER);
      expect(stored?.parentSpanId).toBe(processing?.spanId);
      expect(stored?.traceId).toBe(processing?.traceId);

      // The metrics reader exports every 60 s: what arrives now comes from the SIGTERM handler.
      expect(collector.metrics).toEqual([]);
      const { code, stderr } = await blocks.stop('SIGTERM');
      expect([code, stderr]).toEqual([0, '']);
      expect(collector.metrics).toEqual(
        expect.arrayContaining(['messaging.process.duration', 'gateway.webhook.outcomes']),
      );
      expect([...collector.contentTypes]).toEqual(['application/json']);
    } finally {
      await collector.close();
    }
  });

  guide.itRanEveryMarkedBlock();
});
