// A webhook receiver exactly as the README builds it (node:http + createNodeMiddleware), in a
// process of its own, so a test can abort bodies at it, starve it, or SIGKILL it. It tells the
// parent its port over IPC and appends what its listener does to JOURNAL, one line each.
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeMiddleware } from '../../../src/webhooks/adapters/node.js';
import { WebhookHandler } from '../../../src/webhooks/receive/handler.js';

const env = process.env;
const hooks = new WebhookHandler({
  secret: env.WEBHOOK_SECRET ?? 'receiver-secret',
  dispatch: env.DISPATCH === 'await' ? 'await' : 'background',
  ...(env.BODY_TIMEOUT_MS ? { bodyTimeoutMs: Number(env.BODY_TIMEOUT_MS) } : {}),
});
const journal = (line: string) => env.JOURNAL && appendFileSync(env.JOURNAL, `${line}\n`);
hooks.on('message.add', async ({ meta }) => {
  journal(`start ${meta.idempotency_key}`);
  if (env.HANG === '1') await new Promise(() => {}); // a listener still working when the process dies
  journal(`done ${meta.idempotency_key}`);
});
hooks.on('error', (error, { stage }) => journal(`error ${stage} ${error.name}`));
process.on('unhandledRejection', (reason) => {
  journal(`unhandledRejection ${String(reason)}`);
  process.exit(70);
});

const server = createServer(createNodeMiddleware(hooks)).listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
process.on('disconnect', () => process.exit(0));
