import { createServer } from 'node:http';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createFetchHandler } from '../../src/webhooks/adapters/fetch.js';
import { createNodeMiddleware } from '../../src/webhooks/adapters/node.js';
import type { Webhook } from '../../src/webhooks/decode/parse.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { messageAdd } from '../support/deliveries.js';
import { listen } from '../support/servers.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

function receiver() {
  const hooks = new WebhookHandler({ awaitListeners: true, secret: 'sec-1', maxBodyBytes: 64 * 1024 });
  const received: Webhook[] = [];
  hooks.on('webhook', (w) => void received.push(w));
  hooks.on('error', () => {});
  return { hooks, received };
}

async function serve(app: Parameters<typeof listen>[0]) {
  const server = await listen(app);
  closers.push(server.close);
  return server.url;
}

const deliver = (
  url: string,
  body: string,
  contentType = 'application/json',
  headers: Record<string, string> = {},
) => fetch(url, { method: 'POST', body, headers: { 'content-type': contentType, ...headers } });

const setups = {
  'node:http': (hooks: WebhookHandler) => createServer(createNodeMiddleware(hooks, { path: '/hooks' })),
  'Express 5, no body parser': (hooks: WebhookHandler) =>
    express().post('/hooks', createNodeMiddleware(hooks)),
  'Express 5, after express.json()': (hooks: WebhookHandler) =>
    express().use(express.json()).post('/hooks', createNodeMiddleware(hooks)),
  'Express 5, after express.raw()': (hooks: WebhookHandler) =>
    express()
      .use(express.raw({ type: '*/*' }))
      .post('/hooks', createNodeMiddleware(hooks)),
  'Express 5, after express.text()': (hooks: WebhookHandler) =>
    express()
      .use(express.text({ type: '*/*' }))
      .post('/hooks', createNodeMiddleware(hooks)),
};

describe('Receiving over real HTTP on 127.0.0.1', () => {
  for (const [name, make] of Object.entries(setups)) {
    describe(name, () => {
      it('receives a delivery, any application/json content type, and answers 200', async () => {
        const { hooks, received } = receiver();
        const url = await serve(make(hooks) as never);
        for (const type of [
          'application/json',
          'application/json; charset=utf-8',
          'application/json; charset-utf-8',
        ]) {
          const res = await deliver(`${url}/hooks?secret=sec-1`, messageAdd(undefined, type), type);
          expect(res.status).toBe(200);
          expect(await res.json()).toEqual({ ok: true });
        }
        expect(
          received.map((w) => (w.api === 'v2' && w.event === 'message.add' ? w.data[0]?.text : '')),
        ).toEqual(['application/json', 'application/json; charset=utf-8', 'application/json; charset-utf-8']);
      });

      it('answers 400 to a body that is not JSON, 401 without the secret', async () => {
        const { hooks } = receiver();
        const url = await serve(make(hooks) as never);
        expect((await deliver(`${url}/hooks?secret=sec-1`, '{"event":', 'text/plain')).status).toBe(400);
        expect((await deliver(`${url}/hooks`, messageAdd())).status).toBe(401);
      });
    });
  }

  it('answers 413 past maxBodyBytes without reading the rest (node:http)', async () => {
    const { hooks } = receiver();
    const url = await serve(setups['node:http'](hooks));
    const res = await deliver(`${url}/hooks?secret=sec-1`, `{"pad":"${'x'.repeat(200 * 1024)}"}`);
    expect(res.status).toBe(413);
  });

  it('answers 413 to a chunked body that passes maxBodyBytes, reading no further (node:http)', async () => {
    const { hooks } = receiver();
    const url = await serve(setups['node:http'](hooks));
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 100; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(1024)));
        controller.close();
      },
    });
    // No Content-Length: the limit is found while reading.
    const res = await fetch(`${url}/hooks?secret=sec-1`, {
      method: 'POST',
      body: chunks,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
  });

  it('hands other paths to next() with path, or answers 404 without next', async () => {
    const { hooks } = receiver();
    const app = express();
    app.use(createNodeMiddleware(hooks, { path: '/hooks' }));
    app.get('/health', (_req, res) => void res.send('up'));
    const url = await serve(app);
    expect(await (await fetch(`${url}/health`)).text()).toBe('up');
    const bare = await serve(setups['node:http'](hooks));
    expect((await deliver(`${bare}/elsewhere`, messageAdd())).status).toBe(404);
  });

  it('answers 405 to a GET', async () => {
    const { hooks } = receiver();
    const url = await serve(setups['node:http'](hooks));
    expect((await fetch(`${url}/hooks?secret=sec-1`)).status).toBe(405);
  });
});

describe('createFetchHandler: Request → Response', () => {
  it('handles a Fetch-API request', async () => {
    const { hooks, received } = receiver();
    const handle = createFetchHandler(hooks);
    const res = await handle(
      new Request('https://crm.example/hooks?secret=sec-1', {
        method: 'POST',
        body: messageAdd(),
        headers: { 'content-type': 'application/json; charset-utf-8' },
      }),
    );
    expect(res.status).toBe(200);
    expect(received).toHaveLength(1);
  });

  it('answers 413 past maxBodyBytes and 405 to a GET', async () => {
    const { hooks } = receiver();
    const handle = createFetchHandler(hooks);
    const big = new Request('https://crm.example/hooks?secret=sec-1', {
      method: 'POST',
      body: 'x'.repeat(70 * 1024),
    });
    expect((await handle(big)).status).toBe(413);
    expect((await handle(new Request('https://crm.example/hooks'))).status).toBe(405);
  });
});
