// createNodeMiddleware in real Express 4 and Express 5 apps, with each kind of body parser.

import express5 from 'express';
import express4 from 'express4';
import { describe, expect, it } from 'vitest';
import { createNodeMiddleware } from '../../src/webhooks/adapters/node.js';
import type { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { listen } from '../support/servers.js';
import { deliveryCases, majorOf, skipFrameworks } from './cases.js';

type Express = typeof express5;
type Parser = 'none' | 'json' | 'json on the route' | 'raw' | 'text';

function app(express: Express, parser: Parser) {
  return async (hooks: WebhookHandler) => {
    const app = express();
    if (parser === 'json') app.use(express.json());
    if (parser === 'raw') app.use(express.raw({ type: '*/*' }));
    if (parser === 'text') app.use(express.text({ type: '*/*' }));
    app.get('/health', (_req, res) => void res.send('ok'));
    if (parser === 'json on the route') app.post('/hooks', express.json(), createNodeMiddleware(hooks));
    else app.post('/hooks', createNodeMiddleware(hooks));
    return listen(app);
  };
}

for (const [version, express] of [
  ['Express 4', express4 as unknown as Express],
  ['Express 5', express5],
] as const) {
  deliveryCases(`${version}, no body parser`, app(express, 'none'), { ownsBody: true });
  // express.json() refuses malformed JSON itself (400) before the route: out of the SDK's reach.
  deliveryCases(`${version}, global express.json()`, app(express, 'json'), { malformedAnsweredBy: 400 });
  deliveryCases(`${version}, express.json() on the route`, app(express, 'json on the route'), {
    malformedAnsweredBy: 400,
  });
  deliveryCases(`${version}, global express.raw()`, app(express, 'raw'));
  deliveryCases(`${version}, global express.text()`, app(express, 'text'));
}

describe.skipIf(skipFrameworks)('The matrix runs both majors', () => {
  it('express4 is Express 4 and express is Express 5', () => {
    expect([majorOf('express4'), majorOf('express')]).toEqual(['4', '5']);
  });
});
