// What an edge user ships to receive webhooks: a Cloudflare Workers fetch handler.
import { createFetchHandler, WebhookHandler } from 'messaging-gateway-sdk/webhooks';

const hooks = new WebhookHandler({ secret: 'a-secret-from-the-environment' });
hooks.on('message.add', (event) => console.log(event.data.length));
export default { fetch: createFetchHandler(hooks) };
