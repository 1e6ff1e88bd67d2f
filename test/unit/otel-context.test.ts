// instrument() as a Node application sets it up: a registered context manager and the real SDK.
// The SDK's spans are the active context where the user's code and the HTTP attempt run.
import { type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import { buildWebhook, createFakeGateway } from '../../src/testing.js';
import { parseWebhook, WebhookHandler } from '../../src/webhooks.js';
import { instrumented, useContextManager } from '../support/otel-sdk.js';

const SECRET = 'otel-ctx-secret-77';
useContextManager();

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function setup() {
  const { exporter, tracerProvider, stop, metrics } = instrumented();
  cleanups.push(stop);
  const metricNamed = async (name: string) => (await metrics()).get(name);
  return { exporter, tracerProvider, metricNamed };
}

const delivery = JSON.stringify(buildWebhook('message.add'));
const post = (
  hooks: WebhookHandler,
  url = `/h?secret=${SECRET}`,
  method = 'POST',
  body: unknown = delivery,
) => hooks.handle({ method, url, headers: { 'content-type': 'application/json' }, body });

describe('OpenTelemetry context', () => {
  it("a listener runs inside the process span: a span it starts is that span's child", async () => {
    const { exporter, tracerProvider } = setup();
    const hooks = new WebhookHandler({ secret: SECRET, dispatch: 'await' });
    let active: Span | undefined;
    hooks.on('message.add', () => {
      active = trace.getActiveSpan();
      tracerProvider.getTracer('crm').startSpan('INSERT messages').end();
    });
    expect((await post(hooks)).status).toBe(200);
    const spans = exporter.getFinishedSpans();
    const processSpan = spans.find((s) => s.name === 'process message.add');
    const db = spans.find((s) => s.name === 'INSERT messages');
    expect(active?.spanContext().spanId).toBe(processSpan?.spanContext().spanId);
    expect(db?.parentSpanContext?.spanId).toBe(processSpan?.spanContext().spanId);
  });

  it('under background dispatch the process span lasts until its listeners end: no child outlives it', async () => {
    const { exporter, tracerProvider } = setup();
    const hooks = new WebhookHandler({ secret: SECRET }); // dispatch: 'background'
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    hooks.on('message.add', async () => {
      const span = tracerProvider.getTracer('crm').startSpan('INSERT messages');
      await held;
      span.end();
    });
    expect((await post(hooks)).status).toBe(200);
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual([]); // answered, still processing
    release();
    await hooks.drain();
    await new Promise((resolve) => setImmediate(resolve));
    const spans = exporter.getFinishedSpans();
    const processSpan = spans.find((s) => s.name === 'process message.add');
    const db = spans.find((s) => s.name === 'INSERT messages');
    expect(db && processSpan).toBeDefined();
    expect(db?.parentSpanContext?.spanId).toBe(processSpan?.spanContext().spanId);
    expect(processSpan?.attributes['http.response.status_code']).toBe(200);
    // Spans are exported as they end: the listener's first, then the process span.
    expect(spans.indexOf(db as never)).toBeLessThan(spans.indexOf(processSpan as never));
  });

  it("the client's fetch runs inside the attempt span; the call span is named by its path template", async () => {
    const { exporter } = setup();
    const gateway = await createFakeGateway({ stepMs: 1 });
    cleanups.push(() => gateway.close());
    let active: Span | undefined;
    const client = new GatewayClient({
      baseUrl: gateway.url,
      token: gateway.token,
      fetch: (input, init) => {
        active = trace.getActiveSpan();
        return fetch(input, init);
      },
    });
    await client.channels.get('ch-1').catch(() => undefined);
    const spans = exporter.getFinishedSpans();
    const call = spans.find((s) => s.name.startsWith('GET /v2/channels'));
    expect(call?.name).toBe('GET /v2/channels/{channel_id}');
    const attempt = spans.find((s) => s.parentSpanContext?.spanId === call?.spanContext().spanId);
    expect(active?.spanContext().spanId).toBe(attempt?.spanContext().spanId);
    const port = Number(new URL(gateway.url).port);
    expect(attempt?.attributes).toMatchObject({ 'server.address': '127.0.0.1', 'server.port': port });
    expect(attempt?.attributes['url.template']).toBe('/v2/channels/{channel_id}');
  });

  it('a refused request (405, 401, 413, 408) makes no process span and no process.duration sample, and is counted under its row', async () => {
    const { exporter, metricNamed } = setup();
    const hooks = new WebhookHandler({ secret: SECRET, maxBodyBytes: 100, bodyTimeoutMs: 5 });
    const stalled = new ReadableStream<Uint8Array>({
      start: (c) => c.enqueue(new TextEncoder().encode('{')),
    });
    expect((await post(hooks, `/h?secret=${SECRET}`, 'POST', stalled as never)).status).toBe(408);
    expect((await post(hooks, '/', 'GET')).status).toBe(405);
    expect((await post(hooks, '/h?secret=nope')).status).toBe(401);
    expect((await post(hooks, `/h?secret=${SECRET}`, 'POST', `${delivery}${' '.repeat(200)}`)).status).toBe(
      413,
    );
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect((await metricNamed('messaging.process.duration'))?.dataPoints ?? []).toEqual([]);
    const counted = (await metricNamed('gateway.webhook.outcomes'))?.dataPoints ?? [];
    expect(counted.map((p) => [p.attributes['gateway.webhook.outcome'], p.value]).sort()).toEqual(
      [
        ['bodyTimeout', 1],
        ['methodNotAllowed', 1],
        ['tooLarge', 1],
        ['unauthorized', 1],
      ].sort(),
    );
  });

  it('process spans carry messaging.operation.name; durations are bucketed in seconds', async () => {
    const { exporter, metricNamed } = setup();
    const hooks = new WebhookHandler({ secret: SECRET });
    await post(hooks);
    const span = exporter.getFinishedSpans().find((s) => s.name === 'process message.add');
    expect(span?.attributes['messaging.operation.name']).toBe('process');
    const point = (await metricNamed('messaging.process.duration'))?.dataPoints[0];
    const boundaries =
      (point?.value as { buckets: { boundaries: number[] } } | undefined)?.buckets.boundaries ?? [];
    expect(boundaries[0]).toBeLessThan(0.01);
    expect(boundaries.at(-1)).toBeLessThanOrEqual(60);
  });

  it('a failing receive() marks its span ERROR with error.type and counts as listenerFailed', async () => {
    const { exporter, metricNamed } = setup();
    const hooks = new WebhookHandler({ secret: SECRET, dispatch: async () => {} });
    hooks.on('error', () => {});
    hooks.on('message.add', () => {
      throw new TypeError('boom');
    });
    await expect(hooks.receive(parseWebhook(buildWebhook('message.add')))).rejects.toThrow();
    const span = exporter.getFinishedSpans().find((s) => s.name === 'process message.add');
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes['error.type']).toBeDefined();
    const outcomes = (await metricNamed('gateway.webhook.outcomes'))?.dataPoints ?? [];
    expect(outcomes.map((p) => p.attributes['gateway.webhook.outcome'])).toEqual(['listenerFailed']);
  });
});
