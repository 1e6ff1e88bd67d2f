// The raw TracingChannels, subscribed without OpenTelemetry: what an APM agent sees.
import { tracingChannel } from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import { createFakeGateway } from '../../src/testing.js';
import { createNodeMiddleware, WebhookHandler } from '../../src/webhooks.js';
import { listen } from '../support/servers.js';

const SECRET = 'diag-secret-123';
const PHONE = '79001234567';
const TEXT = 'Your order 5531 shipped';

type Seen = { channel: string; event: string; context: Record<string, unknown> };

function subscribeAll() {
  const seen: Seen[] = [];
  const unsubscribers: (() => void)[] = [];
  for (const name of ['request', 'attempt', 'ratelimit', 'webhook']) {
    const channel = tracingChannel(`messaging-gateway-sdk:${name}`);
    const record = (event: string) => (context: object) =>
      void seen.push({ channel: name, event, context: { ...(context as Record<string, unknown>) } });
    const handlers = {
      start: record('start'),
      end: record('end'),
      asyncStart: record('asyncStart'),
      asyncEnd: record('asyncEnd'),
      error: record('error'),
    };
    channel.subscribe(handlers);
    unsubscribers.push(() => channel.unsubscribe(handlers));
  }
  return {
    seen,
    stop: () => {
      for (const u of unsubscribers) u();
    },
  };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('diagnostics channels, raw', () => {
  it('publish start and end for a call, its attempt, its limiter wait and a delivery; no secret in any context', async () => {
    const gateway = await createFakeGateway({ stepMs: 1, channels: [{ channel_id: 'ch-1' }] });
    cleanups.push(() => gateway.close());
    const hooks = new WebhookHandler({ secret: SECRET });
    const receiver = await listen(createNodeMiddleware(hooks));
    cleanups.push(receiver.close);
    const { seen, stop } = subscribeAll();
    cleanups.push(stop);
    const client = new GatewayClient({ baseUrl: gateway.url, token: gateway.token, apiKey: gateway.apiKey });
    await client.webhooks.subscribe([
      { url: `${receiver.url}/h?secret=${SECRET}`, event: 'message.status_update' },
    ]);
    const sent = await client.messages.send({
      channel_id: 'ch-1',
      recipient: { chat_type: 'whatsapp', chat_id: PHONE },
      text: TEXT,
    });
    await gateway.drain();
    await hooks.drain();

    const request = seen.filter((s) => s.channel === 'request' && s.context.path === '/v2/messages');
    expect(request.map((s) => s.event)).toEqual(['start', 'end', 'asyncStart', 'asyncEnd']);
    expect(request[0]?.context).toMatchObject({ method: 'POST', path: '/v2/messages', api: 'v2' });
    expect(request.at(-1)?.context).toMatchObject({ status: 200, requestId: sent.request_id, attempts: 1 });
    const attempt = seen.filter((s) => s.channel === 'attempt' && s.context.path === '/v2/messages');
    expect(attempt[0]?.context).toMatchObject({ method: 'POST', attempt: 1 });
    expect(attempt.at(-1)?.context).toMatchObject({ status: 200 });
    expect(seen.some((s) => s.channel === 'ratelimit' && s.event === 'start')).toBe(true);

    const deliveries = seen.filter((s) => s.channel === 'webhook' && s.event === 'asyncEnd');
    expect(deliveries.length).toBeGreaterThan(0);
    expect(deliveries[0]?.context).toMatchObject({
      api: 'v2',
      kind: 'message.status_update',
      items: 1,
      requestIds: [sent.request_id],
      outcome: 'accepted',
      status: 200,
    });

    const all = JSON.stringify(seen.map((s) => s.context));
    for (const secret of [gateway.token, gateway.apiKey, SECRET, PHONE, TEXT])
      expect(all).not.toContain(secret);
  });

  it('a request refused before it is authenticated is published on the webhook channel with its outcome and status only', async () => {
    const hooks = new WebhookHandler({ secret: SECRET, maxBodyBytes: 100 });
    const { seen, stop } = subscribeAll();
    cleanups.push(stop);
    const post = (url: string, body = '{}', method = 'POST') =>
      hooks.handle({ method, url, headers: {}, body });
    expect((await post('/h?secret=wrong')).status).toBe(401);
    expect((await post('/h', '{}', 'GET')).status).toBe(405);
    expect((await post(`/h?secret=${SECRET}`, ' '.repeat(101))).status).toBe(413);
    const published = seen.filter((s) => s.channel === 'webhook' && s.event === 'asyncEnd');
    expect(published.map((s) => s.context)).toEqual([
      { admitted: false, outcome: 'unauthorized', status: 401 },
      { admitted: false, outcome: 'methodNotAllowed', status: 405 },
      { admitted: false, outcome: 'tooLarge', status: 413 },
    ]);
    expect(JSON.stringify(seen)).not.toContain('wrong');
  });
});
