// createNodeMiddleware under Google Cloud Functions' own server (@google-cloud/functions-framework,
// the server Cloud Functions and Cloud Run functions run): its parsers read every body before the
// function runs and keep the bytes in req.rawBody, which the middleware must use.
import * as functions from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { describe, expect, it } from 'vitest';
import { createNodeMiddleware } from '../../src/webhooks/adapters/node.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { messageAdd } from '../support/deliveries.js';
import { listen } from '../support/servers.js';
import { deliveryCases, SECRET, skipFrameworks } from './cases.js';

let registered = 0;

/** The framework's server around a function registered under a name of its own. */
function functionsServer(handler: functions.HttpFunction) {
  const name = `hooks${++registered}`;
  functions.http(name, handler);
  return listen(getTestServer(name));
}

// Its JSON parser answers malformed JSON 400 itself, before the function runs.
deliveryCases(
  'Google Cloud Functions (functions-framework)',
  (hooks) => functionsServer(createNodeMiddleware(hooks)),
  {
    malformedAnsweredBy: 400,
  },
);

describe.skipIf(skipFrameworks)('Google Cloud Functions: the body the framework read', () => {
  it('reaches listeners byte for byte from req.rawBody, with the path and query of the delivery', async () => {
    const hooks = new WebhookHandler({ secret: SECRET, dispatch: 'await' });
    const texts: string[] = [];
    const urls: string[] = [];
    hooks.on('message.add', ({ data }, { url }) => {
      texts.push(data[0]?.text ?? '');
      urls.push(url);
    });
    const server = await functionsServer(createNodeMiddleware(hooks));
    try {
      for (const type of ['application/json', 'text/plain', 'application/octet-stream']) {
        const answer = await fetch(`${server.url}/acme?secret=${SECRET}`, {
          method: 'POST',
          headers: { 'content-type': type },
          body: messageAdd(undefined, 'héllo ✓'),
        });
        expect(answer.status).toBe(200);
      }
    } finally {
      await server.close();
    }
    expect(texts).toEqual(['héllo ✓', 'héllo ✓', 'héllo ✓']);
    expect(urls).toEqual(['/acme', '/acme', '/acme']);
  });
});
