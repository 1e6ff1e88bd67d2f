// createFetchHandler in a real Hono app on @hono/node-server, with and without a middleware that
// reads the body first.

import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchHandler } from '../../src/webhooks/adapters/fetch.js';
import type { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { messageAdd } from '../support/deliveries.js';
import { deliveryCases, frameworkHandler, type Receiver, SECRET, skipFrameworks } from './cases.js';

type BodyReader = 'none' | 'text' | 'json';

function start(reader: BodyReader, pass: 'c.req' | 'c.req.raw' = 'c.req') {
  return async (hooks: WebhookHandler): Promise<Receiver> => {
    const app = new Hono();
    const handle = createFetchHandler(hooks);
    if (reader !== 'none') {
      // A logging or signature middleware that reads the body before the route.
      app.use('*', async (c, next) => {
        await (reader === 'text' ? c.req.text() : c.req.json().catch(() => undefined));
        await next();
      });
    }
    app.post('/hooks', (c) => handle(pass === 'c.req' ? c.req : c.req.raw));
    const server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  };
}

deliveryCases('Hono on @hono/node-server', start('none'), { ownsBody: true });
deliveryCases('Hono, after a middleware that read c.req.text()', start('text'));
deliveryCases('Hono, after a middleware that read c.req.json()', start('json'));

describe.skipIf(skipFrameworks)('Hono: the bare Request after a middleware read it', () => {
  const { hooks, errors } = frameworkHandler();
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await start('text', 'c.req.raw')(hooks);
  });
  afterAll(() => receiver?.close());

  it('is answered 500 with an "error" naming the adapters, never a throw', async () => {
    const answer = await fetch(`${receiver.url}/hooks?secret=${SECRET}`, {
      method: 'POST',
      body: messageAdd(),
    });
    expect([answer.status, await answer.json()]).toEqual([500, { error: 'body_missing' }]);
    expect(errors[0]?.[0].message).toMatch(/read it first.*createFetchHandler/s);
  });
});
