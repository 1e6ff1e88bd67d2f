// Requests at the edges of the receive path: a pathological Authorization header, an address no
// URL parser takes, the v3 probe sent before the service holds the crmKey.
import { request as httpRequest } from 'node:http';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { createNodeMiddleware } from '../../src/webhooks/adapters/node.js';
import { bearer } from '../../src/webhooks/receive/request.js';
import { messageAdd, post } from '../support/deliveries.js';
import { collecting } from '../support/handler.js';
import { listen } from '../support/servers.js';

/** One raw request (the path sent as given, which fetch would normalise). */
function raw(url: string, method: string, path: string, body = ''): Promise<number> {
  return new Promise((resolve, reject) => {
    const { port } = new URL(url);
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      method,
      path,
      headers: { 'content-type': 'application/json' },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** CPU time (ms) of one call, the median of five. */
async function cpuMs(work: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = process.cpuUsage();
    await work();
    const used = process.cpuUsage(start);
    times.push((used.user + used.system) / 1000);
  }
  return times.sort((a, b) => a - b)[2] as number;
}

describe('Authorization parsing is linear in the header’s length', () => {
  it('reads Bearer tokens; a blank one is none', () => {
    expect(bearer('Bearer abc')).toBe('abc');
    expect(bearer('  bearer \t abc  ')).toBe('abc');
    expect(bearer('BEARER a b')).toBe('a b');
    expect(bearer('Bearer')).toBeUndefined();
    expect(bearer('Bearer    ')).toBeUndefined();
    expect(bearer('Basic abc')).toBeUndefined();
    expect(bearer('Bearerabc')).toBeUndefined();
    expect(bearer(undefined)).toBeUndefined();
  });

  it('a 16 KB `Bearer x<spaces>y` header is refused in under 5 ms of CPU (it took ~90 ms)', async () => {
    const { hooks } = collecting({ secret: undefined, v3AuthToken: 'crm-key' });
    const authorization = `Bearer x${' '.repeat(16_000)}y`;
    const refuse = async () => {
      const answer = await hooks.handle(post('{}', '/hooks', { authorization }));
      expect(answer.status).toBe(401);
    };
    await refuse(); // warm
    expect(await cpuMs(refuse)).toBeLessThan(5);
  });
});

describe('An address no URL parser takes is answered or passed on, never left hanging', () => {
  it('node:http with { path }: `POST //` and `GET //` are answered 404', async () => {
    const { hooks } = collecting();
    const server = await listen(createNodeMiddleware(hooks, { path: '/hooks' }));
    try {
      expect(await raw(server.url, 'POST', '//', messageAdd())).toBe(404);
      expect(await raw(server.url, 'GET', '//')).toBe(404);
      expect(await raw(server.url, 'POST', '/hooks?secret=hook-secret', messageAdd())).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('Express app.use with { path }: `GET //` goes to next() and reaches the app’s own routes', async () => {
    const { hooks } = collecting();
    const app = express();
    app.use(createNodeMiddleware(hooks, { path: '/hooks' }));
    app.use((_req, res) => {
      res.status(418).end();
    });
    const server = await listen(app as never);
    try {
      expect(await raw(server.url, 'GET', '//')).toBe(418);
      expect(await raw(server.url, 'POST', '//', '{}')).toBe(418);
    } finally {
      await server.close();
    }
  });
});

describe('The v3 { test: true } probe before the service holds the crmKey', () => {
  const probe = JSON.stringify({ test: true });

  it('is answered 200 without credentials when only v3AuthToken is set; nothing is dispatched', async () => {
    const { hooks, errors } = collecting({ secret: undefined, v3AuthToken: 'crm-key' });
    const seen: unknown[] = [];
    hooks.on('webhook', (w) => seen.push(w));
    const answer = await hooks.handle(post(probe, '/hooks'));
    expect(answer.status).toBe(200);
    await hooks.drain();
    expect([seen, errors]).toEqual([[], []]);
  });

  it('an unauthenticated non-probe is still 401, with no more than the first 64 bytes read', async () => {
    const { hooks } = collecting({ secret: undefined, v3AuthToken: 'crm-key' });
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new TextEncoder().encode('{"test":true,   '));
      },
    });
    expect((await hooks.handle(post(endless, '/hooks'))).status).toBe(401);
    expect(pulled).toBeLessThanOrEqual(6); // 16-byte chunks: 64 bytes plus what the stream had queued
    expect((await hooks.handle(post(messageAdd(), '/hooks'))).status).toBe(401);
    expect((await hooks.handle(post('{"test":true,"x":1}', '/hooks'))).status).toBe(401);
    expect((await hooks.handle(post(probe, '/hooks', { 'content-length': '9999' }))).status).toBe(401);
  });

  it('a wrong crmKey is refused, and a configured URL secret is still required', async () => {
    const keyOnly = collecting({ secret: undefined, v3AuthToken: 'crm-key' }).hooks;
    expect((await keyOnly.handle(post(probe, '/hooks', { authorization: 'Bearer wrong' }))).status).toBe(401);
    const both = collecting({ secret: 'sec', v3AuthToken: 'crm-key' }).hooks;
    expect((await both.handle(post(probe, '/hooks'))).status).toBe(401);
  });
});
