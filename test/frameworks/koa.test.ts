// createKoaMiddleware in real Koa 3 apps: without a parser, before a parser, and after
// @koa/bodyparser or koa-body.
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { createKoaMiddleware } from '../../src/webhooks/adapters/koa.js';
import type { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { listen } from '../support/servers.js';
import { deliveryCases } from './cases.js';

const PARSER_LIMIT = 4096;
type Middleware = Koa.Middleware;

function start(...stack: ((hooks: WebhookHandler) => Middleware)[]) {
  return async (hooks: WebhookHandler) => {
    const app = new Koa();
    app.silent = true; // a parser's refusal is expected here, not worth a stack trace
    for (const layer of stack) app.use(layer(hooks));
    app.use((ctx) => {
      ctx.body = 'the app';
    });
    return listen(app.callback());
  };
}

const webhooks = (hooks: WebhookHandler): Middleware => createKoaMiddleware(hooks, { path: '/hooks' });
const koaBodyParser = (): Middleware => bodyParser({ jsonLimit: `${PARSER_LIMIT}b` });

deliveryCases('Koa 3, no body parser', start(webhooks), { ownsBody: true });
deliveryCases('Koa 3, before @koa/bodyparser', start(webhooks, koaBodyParser), {
  ownsBody: true,
  frameworkLimitBytes: PARSER_LIMIT,
});
// A parser mounted first answers malformed JSON itself (400): out of the SDK's reach.
deliveryCases(
  'Koa 3, after @koa/bodyparser (raw body kept)',
  start(() => bodyParser(), webhooks),
  {
    malformedAnsweredBy: 400,
  },
);
deliveryCases(
  'Koa 3, after koa-body (parsed value)',
  start(() => koaBody(), webhooks),
  {
    malformedAnsweredBy: 400,
  },
);
deliveryCases(
  'Koa 3, after koa-body with includeUnparsed',
  start(() => koaBody({ includeUnparsed: true }), webhooks),
  { malformedAnsweredBy: 400 },
);
