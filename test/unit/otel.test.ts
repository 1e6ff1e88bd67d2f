// instrument() with the real OpenTelemetry SDK: spans and metrics of calls and deliveries.
import { tracingChannel } from 'node:diagnostics_channel';
import { inspect } from 'node:util';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import { buildWebhook, createFakeGateway } from '../../src/testing.js';
import type { DedupeStore } from '../../src/webhooks/receive/dedupe-store.js';
import { createNodeMiddleware, WebhookHandler } from '../../src/webhooks.js';
import { instrumented, useContextManager } from '../support/otel-sdk.js';
import { listen } from '../support/servers.js';

const SECRET = 'otel-secret-4821';
const PHONE = '79001234567';
const TEXT = 'Parcel 5531 is on its way';

useContextManager();

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup() {
  const { exporter, stop, metrics: metricsNow } = instrumented();
  cleanups.push(stop);
  const gateway = await createFakeGateway({ stepMs: 1, channels: [{ channel_id: 'ch-1' }] });
  cleanups.push(() => gateway.close());
  const hooks = new WebhookHandler({ secret: SECRET });
  const receiver = await listen(createNodeMiddleware(hooks));
  cleanups.push(receiver.close);
  const client = new GatewayClient({
    baseUrl: gateway.url,
    token: gateway.token,
    apiKey: gateway.apiKey,
    retryBackoff: { initialDelayMs: 1, maxDelayMs: 5 },
  });
  return { exporter, gateway, hooks, receiver, client, metricsNow };
}

const send = (client: GatewayClient, chat_id = PHONE) =>
  client.messages.send({ channel_id: 'ch-1', recipient: { chat_type: 'whatsapp', chat_id }, text: TEXT });

const spansNamed = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);

describe('instrument()', () => {
  it('a send: a PRODUCER span with one CLIENT attempt under it, traceparent sent; its status delivery a linked CONSUMER span', async () => {
    const { exporter, gateway, hooks, receiver, client, metricsNow } = await setup();
    await client.webhooks.subscribe([
      { url: `${receiver.url}/h?secret=${SECRET}`, event: 'message.status_update' },
    ]);
    const { request_id } = await send(client);
    await gateway.drain();
    await hooks.drain();
    const spans = exporter.getFinishedSpans();
    const [producer] = spansNamed(spans, 'send whatsapp');
    expect(producer?.kind).toBe(SpanKind.PRODUCER);
    expect(producer?.attributes).toMatchObject({
      'messaging.system': 'messaging_gateway',
      'messaging.operation.type': 'send',
      'messaging.message.id': request_id,
      'messaging.destination.name': 'ch-1',
    });
    const attempts = spans.filter((s) => s.parentSpanContext?.spanId === producer?.spanContext().spanId);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]?.kind).toBe(SpanKind.CLIENT);
    expect(attempts[0]?.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      'url.full': `${gateway.url}/v2/messages`,
    });
    expect(attempts[0]?.attributes['http.request.resend_count']).toBeUndefined();
    const post = gateway.requests.find((r) => r.method === 'POST' && r.path === '/v2/messages');
    const sc = attempts[0]?.spanContext();
    expect(post?.headers.traceparent).toBe(`00-${sc?.traceId}-${sc?.spanId}-01`);

    const consumers = spans.filter((s) => s.kind === SpanKind.CONSUMER);
    expect(consumers.length).toBeGreaterThan(0);
    expect(consumers[0]?.name).toBe('process message.status_update');
    expect(consumers[0]?.attributes).toMatchObject({
      'gateway.webhook.outcome': 'accepted',
      'http.response.status_code': 200,
    });
    expect(consumers[0]?.links[0]?.context.spanId).toBe(producer?.spanContext().spanId);

    const m = await metricsNow();
    const sentPoints = m.get('messaging.client.sent.messages')?.dataPoints ?? [];
    expect(sentPoints.reduce((n, p) => n + Number(p.value), 0)).toBe(1);
    expect(m.get('messaging.client.operation.duration')).toBeDefined();
    expect(m.get('messaging.process.duration')).toBeDefined();
    const outcomes = m.get('gateway.webhook.outcomes')?.dataPoints ?? [];
    expect(
      outcomes.find((p) => p.attributes['gateway.webhook.outcome'] === 'accepted')?.value,
    ).toBeGreaterThan(0);

    // No attribute anywhere holds a credential, the text or the full phone.
    const everything = JSON.stringify([
      spans.map((s) => [s.name, s.attributes, s.links.map((l) => l.attributes), s.events]),
      [...m.values()].map((x) => x.dataPoints.map((p) => p.attributes)),
    ]);
    for (const secret of [gateway.token, gateway.apiKey, SECRET, PHONE, TEXT])
      expect(everything).not.toContain(secret);
  });

  it('a retried GET: a CLIENT call span with two attempts, the second with resend_count 1', async () => {
    const { exporter, gateway, client } = await setup();
    gateway.failNext('GET', '/v2/channels', { status: 503 });
    await client.channels.list();
    const spans = exporter.getFinishedSpans();
    const call = spans.find((s) => s.name === 'GET /v2/channels');
    expect(call?.kind).toBe(SpanKind.CLIENT);
    const attempts = spans.filter(
      (s) => s.parentSpanContext?.spanId === call?.spanContext().spanId && s.name === 'GET',
    );
    expect(attempts.map((s) => s.attributes['http.response.status_code'])).toEqual([503, 200]);
    expect(attempts.map((s) => s.attributes['http.request.resend_count'])).toEqual([undefined, 1]);
    expect(attempts[0]?.attributes['error.type']).toBe('503');
  });

  it('deliveries through createNodeMiddleware: the outcome of 200 and 400 on CONSUMER spans and the counter; a 401 is counted, with no span', async () => {
    const { exporter, receiver, metricsNow } = await setup();
    const body = JSON.stringify({
      event: 'message.status_update',
      meta: { account_id: 'a1' },
      data: [{ request_id: 'r-1', status: 'read' }],
    });
    const post = (query: string, payload: string, headers: Record<string, string> = {}) =>
      fetch(`${receiver.url}/h${query}`, {
        method: 'POST',
        body: payload,
        headers: { 'content-type': 'application/json', ...headers },
      });
    const statuses = [
      (await post(`?secret=${SECRET}`, body)).status,
      (await post('?secret=wrong-one', body)).status,
      (await post(`?secret=${SECRET}`, '{"event":')).status,
    ];
    expect(statuses).toEqual([200, 401, 400]);
    const consumers = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CONSUMER);
    expect(consumers.map((s) => s.attributes['http.response.status_code'])).toEqual([200, 400]);
    expect(consumers.map((s) => s.attributes['gateway.webhook.outcome'])).toEqual(['accepted', 'invalid']);
    const outcomes = (await metricsNow()).get('gateway.webhook.outcomes')?.dataPoints ?? [];
    expect(outcomes.map((p) => [p.attributes['gateway.webhook.outcome'], p.value]).sort()).toEqual(
      [
        ['accepted', 1],
        ['invalid', 1],
        ['unauthorized', 1],
      ].sort(),
    );
  });

  it('a delivery held elsewhere: 409 processing on the CONSUMER span', async () => {
    const { exporter } = await setup();
    const busy: DedupeStore = {
      claim: async () => ({ state: 'processing' }),
      keepReply: async () => {},
      complete: async () => {},
      release: async () => {},
    };
    const hooks = new WebhookHandler({ secret: SECRET, dedupe: busy });
    const body = JSON.stringify(
      buildWebhook('message.status_update', { data: [{ request_id: 'r-9', status: 'read' }] }),
    );
    const answer = await hooks.handle({ method: 'POST', url: `/h?secret=${SECRET}`, headers: {}, body });
    expect(answer.status).toBe(409);
    const consumer = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.CONSUMER);
    expect(consumer?.attributes).toMatchObject({
      'gateway.webhook.outcome': 'processing',
      'http.response.status_code': 409,
    });
  });

  it('two instrument() at once: each records its own span of a delivery, and one stopped leaves the other whole', async () => {
    const first = instrumented();
    const second = instrumented();
    cleanups.push(first.stop, second.stop);
    const hooks = new WebhookHandler({ secret: SECRET });
    const deliver = (id: string) =>
      hooks.handle({
        method: 'POST',
        url: `/h?secret=${SECRET}`,
        headers: {},
        body: JSON.stringify(
          buildWebhook('message.status_update', { data: [{ request_id: id, status: 'read' }] }),
        ),
      });
    expect((await deliver('r-1')).status).toBe(200);
    first.stop();
    expect((await deliver('r-2')).status).toBe(200);
    const outcomes = (exporter: typeof first.exporter) =>
      exporter
        .getFinishedSpans()
        .filter((s) => s.kind === SpanKind.CONSUMER)
        .map((s) => [
          s.name,
          s.attributes['gateway.webhook.outcome'],
          s.attributes['http.response.status_code'],
        ]);
    expect(outcomes(first.exporter)).toEqual([['process message.status_update', 'accepted', 200]]);
    expect(outcomes(second.exporter)).toEqual([
      ['process message.status_update', 'accepted', 200],
      ['process message.status_update', 'accepted', 200],
    ]);
  });

  it("a user's own subscriber to the webhook channel sees no span of instrument() on the context, printed or spread", async () => {
    const { exporter, stop } = instrumented();
    cleanups.push(stop);
    const channel = tracingChannel('messaging-gateway-sdk:webhook');
    const seen: string[] = [];
    const log = (message: unknown) => {
      seen.push(inspect(message), inspect({ ...(message as object) }));
    };
    channel.start.subscribe(log);
    cleanups.push(() => channel.start.unsubscribe(log));
    const hooks = new WebhookHandler({ secret: SECRET });
    const body = JSON.stringify(
      buildWebhook('message.status_update', { data: [{ request_id: 'r-1', status: 'read' }] }),
    );
    expect(
      (await hooks.handle({ method: 'POST', url: `/h?secret=${SECRET}`, headers: {}, body })).status,
    ).toBe(200);
    const traceId = exporter.getFinishedSpans()[0]?.spanContext().traceId;
    expect(traceId).toBeDefined();
    expect(seen).toHaveLength(2);
    for (const printed of seen) {
      expect(printed).not.toContain(String(traceId));
      expect(printed).not.toContain('messaging.operation.type');
    }
  });

  it('after stop, nothing more is recorded', async () => {
    const { exporter, client } = await setup();
    cleanups.shift()?.();
    await client.channels.list();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
