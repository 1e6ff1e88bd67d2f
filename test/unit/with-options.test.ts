// client.withOptions: a client per account that shares what it does not override, over real
// HTTP on 127.0.0.1.
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import { GatewayTimeoutError, GatewayValidationError } from '../../src/core/errors.js';
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

  it('refuses a token or apiKey given as undefined or empty, never sending the parent’s or GATEWAY_TOKEN', async () => {
    server.seen.length = 0;
    const saved = process.env.GATEWAY_TOKEN;
    process.env.GATEWAY_TOKEN = 'env-token-of-the-default-account';
    try {
      const parent = new GatewayClient({ baseUrl: url, token: 'parent-token', apiKey: 'parent-key' });
      const accounts: Record<string, string | undefined> = { acme: undefined, globex: '' };
      for (const [option, value] of [
        ['token', accounts.acme],
        ['token', accounts.globex],
        ['apiKey', undefined],
        ['apiKey', ''],
      ] as const) {
        for (const build of [
          () => parent.withOptions({ [option]: value }),
          () => new GatewayClient({ baseUrl: url, [option]: value }),
        ]) {
          expect(build).toThrow(GatewayValidationError);
          const error = (() => {
            try {
              build();
            } catch (e) {
              return e as GatewayValidationError;
            }
          })();
          expect(error?.issues[0]?.path).toEqual([option]);
          expect(error?.message).not.toContain('parent-');
        }
      }
      // left out, it is inherited (withOptions) or read from the environment (constructor), as before
      await parent.withOptions({ headers: {} }).channels.list();
      await new GatewayClient({ baseUrl: url }).channels.list();
      expect(server.seen.map((s) => s.authorization)).toEqual([
        'Bearer parent-token',
        'Bearer env-token-of-the-default-account',
      ]);
    } finally {
      if (saved === undefined) delete process.env.GATEWAY_TOKEN;
      else process.env.GATEWAY_TOKEN = saved;
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
