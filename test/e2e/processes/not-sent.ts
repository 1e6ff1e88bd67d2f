// Child process: the first call of a fresh process, a POST with a 1 ms timeout. The HTTP client
// (ky) loads on the first call, and the attempt's time runs out while it loads, before anything
// is handed to fetch. Reports how the call ended and how many requests the server got.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayClient } from '../../../src/index.js';

let requests = 0;
const server = createServer((_req, res) => {
  requests++;
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"request_id":"r","chat_id":"c"}}');
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const client = new GatewayClient({ token: 't-1234', baseUrl, rateLimit: false, timeout: 1, maxRetries: 0 });
const send = {
  channel_id: 'ch',
  recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
  text: 'hi',
} as const;
const error = (await client.messages.send(send).catch((e: unknown) => e)) as Record<string, unknown>;
process.send?.({ name: error?.name, retryable: error?.retryable, queued: error?.queued, requests });
server.close();
