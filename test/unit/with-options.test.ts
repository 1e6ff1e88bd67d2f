// client.withOptions: a client per account that shares what it does not override, over real
// HTTP on 127.0.0.1.
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import { GatewayError, GatewayTimeoutError, GatewayValidationError } from '../../src/core/errors.js';
import { listen } from '../support/servers.js';

/** A server answering every call `{"data":[]}`, recording what each request carried. */
function recordingServer() {
  const seen: { url: string; authorization: string; tenant: string }[] = [];
  const started = listen((req: IncomingMessage, res) => {
    seen.push({
      url: req.url ?? '',
      authorization: req.headers.authorization ?? '',
      tenant: String(req.headers['x-tenant'] ?? ''),
    });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}');
  });
  return { seen, started };
}

describe('client.withOptions', () => {
  const server = recordingServer();
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ url, close } = await server.started);
  });
  afterAll(() => close());

  it('calls with its own token, header and address; the parent keeps its own', async () => {
    server.seen.length = 0;
    const parent = new GatewayClient({
      baseUrl: `${url}/a`,
      token: 'parent-token',
      apiKey: 'parent-key',
      headers: { 'x-tenant': 'p' },
    });
    const acme = parent.withOptions({ token: 'acme-token', headers: { 'x-tenant': 'acme' } });
    const moved = parent.withOptions({ baseUrl: `${url}/b` });
    await acme.channels.list();
    await parent.channels.list();
    await moved.v3.webhooks.get();
    expect(server.seen).toEqual([
      { url: '/a/v2/channels', authorization: 'Bearer acme-token', tenant: 'acme' },
      { url: '/a/v2/channels', authorization: 'Bearer parent-token', tenant: 'p' },
      // v3BaseUrl followed baseUrl, as it does in the constructor; the rest is the parent's
      { url: '/b/v3/webhooks', authorization: 'Bearer parent-key', tenant: 'p' },
    ]);
  });

  it('checks what it is given as the constructor does, naming the option', () => {
    const parent = new GatewayClient({ baseUrl: url, token: 't' });
    expect(() => parent.withOptions({ timeout: -1 })).toThrow(GatewayValidationError);
    expect(() => parent.withOptions({ timeout: -1 })).toThrow(/timeout/);
    expect(() => parent.withOptions({ baseUrl: 'not a url' })).toThrow(/baseUrl/);
  });

  it('a token or apiKey given as undefined or empty is none: never the parent’s or the environment’s', async () => {
    server.seen.length = 0;
    const saved = { token: process.env.GATEWAY_TOKEN, key: process.env.GATEWAY_API_KEY };
    process.env.GATEWAY_TOKEN = 'env-token-of-the-default-account';
    process.env.GATEWAY_API_KEY = 'env-key-of-the-default-account';
    try {
      const parent = new GatewayClient({ baseUrl: url, token: 'parent-token', apiKey: 'parent-key' });
      const accounts: Record<string, string | undefined> = { acme: undefined, globex: '' };
      for (const value of [accounts.acme, accounts.globex]) {
        // an account with a v2 token and no v3 key (or the reverse) is made, and works on its API
        const clients = {
          token: [parent.withOptions({ token: value }), new GatewayClient({ baseUrl: url, token: value })],
          apiKey: [
            parent.withOptions({ token: 'acme-token', apiKey: value }),
            new GatewayClient({ baseUrl: url, token: 'acme-token', apiKey: value }),
          ],
        };
        for (const client of clients.token) {
          const error = await client.channels.list().catch((e: unknown) => e as GatewayError);
          expect(error).toBeInstanceOf(GatewayError);
          expect(error).toMatchObject({ message: expect.stringMatching(/^No token/), requestSent: false });
          await client.v3.webhooks.get();
        }
        for (const client of clients.apiKey) {
          const error = await client.v3.webhooks.get().catch((e: unknown) => e as GatewayError);
          expect(error).toMatchObject({ message: expect.stringMatching(/^No apiKey/), requestSent: false });
          await client.channels.list();
        }
      }
      // only the calls of the APIs each client has a credential for left, with that credential
      const carried = new Set(server.seen.map((s) => s.authorization));
      expect(carried).toEqual(
        new Set(['Bearer parent-key', 'Bearer env-key-of-the-default-account', 'Bearer acme-token']),
      );
      // left out, it is inherited (withOptions) or read from the environment (constructor), as before
      server.seen.length = 0;
      await parent.withOptions({ headers: {} }).channels.list();
      await new GatewayClient({ baseUrl: url }).channels.list();
      expect(server.seen.map((s) => s.authorization)).toEqual([
        'Bearer parent-token',
        'Bearer env-token-of-the-default-account',
      ]);
      // a credential of another type is a mistake, refused at once without echoing it
      const wrong = () => new GatewayClient({ baseUrl: url, token: 42 as never });
      expect(wrong).toThrow(GatewayValidationError);
      expect(wrong).toThrow(/token/);
    } finally {
      for (const [name, value] of [
        ['GATEWAY_TOKEN', saved.token],
        ['GATEWAY_API_KEY', saved.key],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('shares the limiter unless given one: a full window holds the parent and every such client', async () => {
    const parent = new GatewayClient({
      baseUrl: url,
      token: 't',
      rateLimit: { requests: 1, intervalMs: 60_000 },
    });
    const shared = parent.withOptions({ token: 'shared' });
    const own = parent.withOptions({ token: 'own', rateLimit: { requests: 1, intervalMs: 60_000 } });
    await parent.channels.list(); // the one start of the window
    await expect(shared.channels.list({ timeout: 50 })).rejects.toBeInstanceOf(GatewayTimeoutError);
    await expect(own.channels.list({ timeout: 5_000 })).resolves.toEqual([]); // a window of its own
  });

  it('shares the logger, and scrubs the derived token from its lines', async () => {
    const lines: string[] = [];
    const logger = { debug: (l: string) => lines.push(l), info() {}, warn() {}, error() {} };
    const parent = new GatewayClient({ baseUrl: url, token: 't', logger, logLevel: 'debug' });
    await parent.withOptions({ token: 'acme-token' }).channels.list();
    expect(lines.some((line) => line.includes('GET /v2/channels'))).toBe(true);
    expect(lines.join('\n')).not.toContain('acme-token');
  });

  it('shows no token when serialized or inspected', async () => {
    const derived = new GatewayClient({ baseUrl: url, token: 't' }).withOptions({ token: 'acme-token' });
    const { inspect } = await import('node:util');
    expect(JSON.stringify(derived)).not.toContain('acme-token');
    expect(inspect(derived, { depth: 10 })).not.toContain('acme-token');
  });
});
