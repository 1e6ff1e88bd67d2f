// createFastifyPlugin in real Fastify 4 and Fastify 5 apps whose own routes keep Fastify's JSON
// parser, with an app bodyLimit below maxBodyBytes.

import fastify5 from 'fastify';
import fastify4 from 'fastify4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFastifyPlugin } from '../../src/webhooks/adapters/fastify.js';
import type { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { deliveryCases, frameworkHandler, majorOf, type Receiver, skipFrameworks } from './cases.js';

const APP_BODY_LIMIT = 4096;

/** What the test needs of an app of either version; each version registers with its own types. */
interface App {
  post(path: string, handler: (request: { body: unknown }) => Promise<unknown>): unknown;
  listen(options: { port: number; host: string }): Promise<string>;
  close(): Promise<unknown>;
}

function start(create: (hooks: WebhookHandler) => Promise<App>) {
  return async (hooks: WebhookHandler): Promise<Receiver> => {
    const app = await create(hooks);
    app.post('/echo', async (request) => ({ parsed: request.body }));
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    return { url, close: async () => void (await app.close()) };
  };
}

const versions: [string, (hooks: WebhookHandler) => Promise<App>][] = [
  [
    'Fastify 4',
    async (hooks) => {
      const app = fastify4({ bodyLimit: APP_BODY_LIMIT });
      await app.register(createFastifyPlugin(hooks, { path: '/hooks' }));
      return app;
    },
  ],
  [
    'Fastify 5',
    async (hooks) => {
      const app = fastify5({ bodyLimit: APP_BODY_LIMIT });
      await app.register(createFastifyPlugin(hooks, { path: '/hooks' }));
      return app;
    },
  ],
];

for (const [version, create] of versions) {
  deliveryCases(`${version}, createFastifyPlugin`, start(create), {
    ownsBody: true,
    frameworkLimitBytes: APP_BODY_LIMIT,
  });

  describe.skipIf(skipFrameworks)(`${version}: the app's other routes keep Fastify's parser`, () => {
    let receiver: Receiver;
    beforeAll(async () => {
      receiver = await start(create)(frameworkHandler().hooks);
    });
    afterAll(() => receiver?.close());

    it('parses JSON on another route and refuses malformed JSON there itself', async () => {
      const echo = (body: string) =>
        fetch(`${receiver.url}/echo`, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json' },
        });
      const good = await echo('{"a":1}');
      expect(await good.json()).toEqual({ parsed: { a: 1 } });
      expect((await echo('{"a":')).status).toBe(400);
      expect((await echo(`{"a":"${'x'.repeat(APP_BODY_LIMIT)}"}`)).status).toBe(413);
    });

    it('answers a GET on the webhook path 405, from the outcome table', async () => {
      expect((await fetch(`${receiver.url}/hooks`)).status).toBe(405);
    });
  });
}

describe.skipIf(skipFrameworks)('The matrix runs both majors', () => {
  it('fastify4 is Fastify 4 and fastify is Fastify 5', () => {
    expect([majorOf('fastify4'), majorOf('fastify')]).toEqual(['4', '5']);
  });
});
