// The built-in fetch on real HTTP: a call settles at its deadline, or at the caller's abort,
// wherever the service stalls (before the headers, or in the middle of the body). The client
// races a user's fetch with its own signal; the built-in one is trusted to honour the signal, and
// these tests are what that trust rests on.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import { GatewayAbortError, GatewayTimeoutError } from '../../src/core/errors.js';
import { listen } from '../support/servers.js';

let close: (() => Promise<void>) | undefined;
const held: ServerResponse[] = [];
afterEach(async () => {
  for (const res of held.splice(0)) res.destroy();
  await close?.();
  close = undefined;
});

/** A service that answers the headers (and half a body) or nothing, then never goes on. */
async function stalling(after: 'nothing' | 'headers' | 'half a body'): Promise<string> {
  const server = await listen((req, res) => {
    req.resume();
    held.push(res);
    if (after === 'nothing') return;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    if (after === 'half a body') res.write('{"data":[{"channel_id":"c1",');
    else res.flushHeaders();
  });
  close = server.close;
  return server.url;
}

const client = (baseUrl: string) =>
  new GatewayClient({ baseUrl, token: 't', maxRetries: 0, timeout: 150, rateLimit: false });

describe('the built-in fetch on a stalling service', () => {
  for (const after of ['nothing', 'headers', 'half a body'] as const) {
    it(`a call whose service sends ${after} and stalls ends at its timeout`, async () => {
      const url = await stalling(after);
      const started = performance.now();
      const error = await client(url)
        .channels.list()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayTimeoutError);
      expect(performance.now() - started).toBeLessThan(1500);
    });

    it(`a call whose service sends ${after} and stalls ends at the caller's abort`, async () => {
      const url = await stalling(after);
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('stop')), 30);
      const error = await new GatewayClient({
        baseUrl: url,
        token: 't',
        maxRetries: 0,
        rateLimit: false,
      }).channels
        .list({ signal: controller.signal })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayAbortError);
    });
  }
});
