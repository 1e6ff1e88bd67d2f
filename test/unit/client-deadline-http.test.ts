// The built-in fetch on real HTTP: a call settles at its deadline, or at the caller's abort,
// wherever the service stalls (before the headers, or in the middle of the body). Every fetch,
// built-in or the user's, is raced with the attempt's deadline and the caller's signal.
import type { ServerResponse } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
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
      // the service never finishes: the call ends only by its own 150 ms timeout
      const error = await client(url)
        .channels.list()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayTimeoutError);
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

/** A service that never answers, and says when a request's connection ends. */
async function neverAnswering(): Promise<{
  url: string;
  received: Promise<void>;
  ended: Promise<void>;
  bodies: string[];
}> {
  let receive!: () => void;
  const received = new Promise<void>((resolve) => {
    receive = resolve;
  });
  let end!: () => void;
  const ended = new Promise<void>((resolve) => {
    end = resolve;
  });
  const bodies: string[] = [];
  const server = await listen((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => bodies.push(body));
    held.push(res);
    res.on('close', end);
    receive();
  });
  close = server.close;
  return { url: server.url, received, ended, bodies };
}

/** A full garbage collection, without starting node with --expose-gc. */
const collectGarbage: () => void = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<'still going'>((resolve) => setTimeout(resolve, ms, 'still going'))]);

describe('a fetch that is not the runtime own', () => {
  // A proxy agent's fetch, `(request) => fetch(request, { dispatcher })`: it passes on the
  // request and drops init. When ky carried the signal, the request's own signal stopped it.
  const passingOnTheRequestOnly = (request: Request | string | URL) => globalThis.fetch(request as Request);

  it('a custom fetch that passes on only the request still stops it at the timeout', async () => {
    const service = await neverAnswering();
    // A full collection while the request waits: undici's Request follows the signal it was
    // given through a weak reference, so the request made for the custom fetch must be held
    // until its fetch settles, or the timeout never reaches the connection.
    void service.received.then(() => collectGarbage());
    const error = await new GatewayClient({
      baseUrl: service.url,
      token: 't',
      maxRetries: 0,
      timeout: 150,
      rateLimit: false,
      fetch: passingOnTheRequestOnly,
    }).messages
      .send({ channel_id: 'ch-1', recipient: { chat_type: 'whatsapp', chat_id: '79001234567' }, text: 'Hi' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayTimeoutError);
    // The request went out whole, and its connection ends with the call, not with the service.
    expect(await within(service.ended, 5000)).not.toBe('still going');
    expect(JSON.parse(service.bodies[0] ?? '{}')).toMatchObject({ channel_id: 'ch-1', text: 'Hi' });
  });

  it("a custom fetch that passes on only the request still stops it at the caller's abort", async () => {
    const service = await neverAnswering();
    const controller = new AbortController();
    void service.received.then(() => {
      collectGarbage(); // as above
      controller.abort(new Error('stop'));
    });
    const error = await new GatewayClient({
      baseUrl: service.url,
      token: 't',
      maxRetries: 0,
      rateLimit: false,
      fetch: passingOnTheRequestOnly,
    }).channels
      .list({ signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayAbortError);
    expect(await within(service.ended, 1000)).not.toBe('still going');
  });

  // A test double put in place of the global fetch (vi.stubGlobal('fetch', ...)) is no more
  // trusted than a fetch given as an option: the client is not told of it.
  for (const end of ['timeout', "caller's abort"] as const) {
    it(`a double in place of the global fetch that never settles ends at the ${end}`, async () => {
      const original = globalThis.fetch;
      globalThis.fetch = (() => new Promise<Response>(() => {})) as typeof fetch;
      try {
        const controller = new AbortController();
        if (end !== 'timeout') setTimeout(() => controller.abort(new Error('stop')), 30);
        const call = new GatewayClient({
          baseUrl: 'http://127.0.0.1:9',
          token: 't',
          maxRetries: 0,
          timeout: end === 'timeout' ? 100 : 30_000,
          rateLimit: false,
        }).channels
          .list({ signal: controller.signal })
          .catch((e: unknown) => e);
        const error = await within(call, 1500);
        expect(error).toBeInstanceOf(end === 'timeout' ? GatewayTimeoutError : GatewayAbortError);
      } finally {
        globalThis.fetch = original;
      }
    });
  }
});
