// An unauthenticated request costs the receiver about what its bytes cost to read, whatever its
// query holds: a query full of malformed escapes must not buy seconds of CPU for a few kilobytes.
import { createServer, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeMiddleware } from '../../src/webhooks/adapters/node.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { messageAdd } from '../support/deliveries.js';
import { listen } from '../support/servers.js';

/** POSTs `body` to `url` and resolves with the status. */
function post(url: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('A hostile query over real HTTP is refused 401 as cheaply as any other', () => {
  let server: { url: string; close: () => Promise<void> };

  beforeAll(async () => {
    const hooks = new WebhookHandler({ secret: 'right' });
    hooks.on('error', () => {});
    // Room for a 16 KB query beside the headers (node's own default stops at 16 KB in all).
    server = await listen(
      createServer({ maxHeaderSize: 64 * 1024 }, createNodeMiddleware(hooks, { path: '/hooks' })),
    );
  });
  afterAll(() => server.close());

  it('answers 16 KB of `%=&` or of `%zz=1&` 401, each within a few milliseconds of CPU (client included)', async () => {
    for (const piece of ['%=&', '%zz=1&']) {
      const url = `${server.url}/hooks?${piece.repeat(Math.floor(16_384 / piece.length))}`;
      expect(await post(url, messageAdd())).toBe(401); // warm
      // The cheapest of five requests: a busy machine can slow one of them, not all.
      let cheapest = Number.POSITIVE_INFINITY;
      for (let run = 0; run < 5; run++) {
        const start = process.cpuUsage();
        expect(await post(url, messageAdd())).toBe(401);
        const used = process.cpuUsage(start);
        cheapest = Math.min(cheapest, (used.user + used.system) / 1000);
      }
      expect(cheapest, piece).toBeLessThan(10);
    }
    expect(await post(`${server.url}/hooks?secret=right`, messageAdd())).toBe(200);
  });
});
