// A web process: receives deliveries and answers 200 once each is in the queue.
// Run several behind a load balancer: `tsx examples/fleet/web.ts`.
import { createServer } from 'node:http';
import { createNodeMiddleware } from 'messaging-gateway-sdk/webhooks';
import { hooks } from './shared.js';

const port = Number(process.env.PORT ?? 3000);
createServer(createNodeMiddleware(hooks, { path: '/hooks' })).listen(port, () =>
  console.log(`receiving webhooks on http://127.0.0.1:${port}/hooks?secret=…`),
);
