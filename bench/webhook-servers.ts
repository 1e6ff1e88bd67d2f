// Child process of the webhook bench: a bare node:http handler (read + JSON.parse) and one
// through createNodeMiddleware, on two loopback ports printed as JSON on stdout. The SDK is the
// built package (dist/), as users run it: the source through tsx carries a __name call per
// closure that the build does not.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeMiddleware, WebhookHandler } from '../dist/webhooks.js';

let parsed = 0;
const bare = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  JSON.parse(Buffer.concat(chunks).toString('utf8'));
  parsed++;
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
});
// As production runs it: a secret, checked on every delivery.
const hooks = new WebhookHandler({ secret: 'bench-secret-of-some-length' });
let dispatched = 0;
hooks.on('message.add', () => void dispatched++);
const sdk = createServer(createNodeMiddleware(hooks));

const port = (s: typeof bare) =>
  new Promise<number>((r) => s.listen(0, '127.0.0.1', () => r((s.address() as AddressInfo).port)));
const ports = { bare: await port(bare), sdk: await port(sdk) };
console.log(JSON.stringify(ports));
void parsed;
void dispatched;
// The parent asks for this process's CPU time around each round: the cost of a delivery to the
// server under load, which the scheduler's share of the cores does not blur as it blurs rates.
process.on('message', () => process.send?.(process.cpuUsage()));
process.on('disconnect', () => process.exit(0));
