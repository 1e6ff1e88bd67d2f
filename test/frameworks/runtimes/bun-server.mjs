// Runs in Bun: the BUILT /webhooks entry answering deliveries through createFetchHandler.
import { createFetchHandler, WebhookHandler } from '../../../dist/webhooks.js';

const hooks = new WebhookHandler({ secret: 'runtime-secret', dispatch: 'await' });
hooks.on('message.add', ({ data }) => console.log(`received ${data[0]?.text}`));
hooks.on('error', (_error, { stage }) => console.log(`error ${stage}`));
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: createFetchHandler(hooks) });
console.log(`listening ${server.port} on Bun ${Bun.version}`);
