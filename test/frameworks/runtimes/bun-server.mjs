// Runs in Bun, copied into a project that has the package installed (test/frameworks/linked-project.ts):
// the BUILT /webhooks entry, by the package's name, answering deliveries through createFetchHandler.
import { createFetchHandler, WebhookHandler } from 'messaging-gateway-sdk/webhooks';

const hooks = new WebhookHandler({ secret: 'runtime-secret', dispatch: 'await' });
hooks.on('message.add', ({ data }) => console.log(`received ${data[0]?.text}`));
hooks.on('error', (_error, { stage }) => console.log(`error ${stage}`));
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: createFetchHandler(hooks) });
console.log(`listening ${server.port} on Bun ${Bun.version}`);
