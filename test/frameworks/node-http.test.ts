// createNodeMiddleware as a plain node:http request listener.
import { createServer } from 'node:http';
import { createNodeMiddleware } from '../../src/webhooks/adapters/node.js';
import { listen } from '../support/servers.js';
import { deliveryCases } from './cases.js';

deliveryCases(
  'node:http',
  async (hooks) => listen(createServer(createNodeMiddleware(hooks, { path: '/hooks' }))),
  {
    ownsBody: true,
  },
);
