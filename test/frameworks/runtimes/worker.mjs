// A Cloudflare Worker (module syntax) around the BUILT /webhooks entry, bundled for workerd by the
// test. Background listeners take 200 ms after the answer; /finished lists the deliveries whose
// listener got to the end. /no-context calls the handler without the Workers ctx.
import { createFetchHandler, WebhookHandler } from '../../../dist/webhooks.js';

const finished = [];
const hooks = new WebhookHandler({ secret: 'worker-secret' }); // dispatch: 'background', the default
hooks.on('message.add', async ({ meta }) => {
  await new Promise((resolve) => setTimeout(resolve, 200));
  finished.push(meta.idempotency_key);
});
const handle = createFetchHandler(hooks);

export default {
  fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    if (pathname === '/finished') return Response.json(finished);
    if (pathname === '/no-context') return handle(request);
    return handle(request, env, ctx);
  },
};
