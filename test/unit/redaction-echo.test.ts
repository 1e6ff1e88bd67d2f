// A service that echoes the credential back: no error, diagnostics message or span holds it.
import { tracingChannel } from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import { GatewayError, GatewayValidationError } from '../../src/core/errors.js';
import { listen } from '../support/servers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A server answering every request with `answer(token)`: status, headers, body. */
async function echoing(
  answer: (token: string) => { status: number; headers?: Record<string, string>; body: unknown },
) {
  const server = await listen((req, res) => {
    const token = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    const { status, headers = {}, body } = answer(token);
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  });
  cleanups.push(server.close);
  return server;
}

/** Everything published on the request and attempt channels while `work` runs. */
async function published(work: () => Promise<unknown>): Promise<string> {
  const seen: unknown[] = [];
  const subscriptions = ['request', 'attempt'].map((name) => {
    const channel = tracingChannel(`messaging-gateway-sdk:${name}`);
    const handlers = {
      start: () => {},
      end: () => {},
      asyncStart: () => {},
      error: () => {},
      asyncEnd: (ctx: unknown) => void seen.push({ ...(ctx as object), error: undefined }),
    };
    channel.subscribe(handlers);
    return () => channel.unsubscribe(handlers);
  });
  try {
    await work().catch((error: unknown) => seen.push(error, String(error), (error as Error).cause));
  } finally {
    for (const stop of subscriptions) stop();
  }
  return JSON.stringify(seen, (_k, v) =>
    v instanceof Error ? { ...v, message: v.message, stack: v.stack } : v,
  );
}

describe('credentials echoed back by the service', () => {
  it('a token echoed in the request id reaches no diagnostics message', async () => {
    const token = 'tok-in-request-id-5521';
    const server = await echoing((t) => ({
      status: 200,
      headers: { 'x-request-id': `rq-${t}` },
      body: { data: [] },
    }));
    const client = new GatewayClient({ baseUrl: server.url, token });
    const text = await published(() => client.channels.list());
    expect(text).toContain('rq-');
    expect(text).not.toContain(token);
  });

  it('credentials written into baseUrl are refused at construction, and the error holds none', () => {
    // fetch cannot make a request to such an address: every call would fail as if unanswered.
    for (const [option, baseUrl] of [
      ['baseUrl', 'http://crm-user:base-url-pass-9@127.0.0.1:1'],
      ['v3BaseUrl', 'https://crm-user:base-url-pass-9@gateway.example'],
      ['baseUrl', 'http://crm-user:base-url-pass-9@[not a host'],
    ] as const) {
      const build = () => new GatewayClient({ baseUrl: 'http://127.0.0.1:1', [option]: baseUrl, token: 't' });
      expect(build).toThrow(GatewayError);
      expect(build).toThrow(option);
      const text = String(
        (() => {
          try {
            build();
          } catch (error) {
            return (error as Error).message;
          }
        })(),
      );
      expect(text).not.toContain('base-url-pass-9');
      expect(text).not.toContain('crm-user');
    }
  });

  it('a base address holding a query or a fragment is refused at construction, naming it, never echoing it', () => {
    for (const [option, address] of [
      ['baseUrl', 'https://gateway.example/api?key=query-secret-41'],
      ['v3BaseUrl', 'https://gateway.example/api?key=query-secret-41'],
      ['baseUrl', 'https://gateway.example/api#query-secret-41'],
      ['baseUrl', 'gateway.example?key=query-secret-41'],
    ] as const) {
      const build = () =>
        new GatewayClient({ baseUrl: 'http://127.0.0.1:1', [option]: address, token: 'token-1' });
      let error: unknown;
      try {
        build();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(GatewayValidationError);
      expect((error as GatewayValidationError).issues[0]?.path).toEqual([option]);
      expect(JSON.stringify(error)).not.toContain('query-secret-41');
      expect((error as Error).message).not.toContain('query-secret-41');
    }
    // withOptions refuses it too
    const parent = new GatewayClient({ baseUrl: 'http://127.0.0.1:1', token: 'token-1' });
    expect(() => parent.withOptions({ baseUrl: 'http://127.0.0.1:1/?key=query-secret-41' })).toThrow(
      GatewayValidationError,
    );
  });

  it.each([
    [
      'in lower case',
      'TOKEN-UPPER-7731',
      (t: string) => ({ error: 'bad', description: `got ${t.toLowerCase()}` }),
    ],
    [
      'as a whole value when shorter than 8 characters',
      'q7z',
      (t: string) => ({ error: 'bad', description: t }),
    ],
    ['nested deeper than 20 levels', 'tok-deep-4410', (t: string) => ({ error: 'bad', data: nest(25, t) })],
    ['as an object key', 'tok-key-8813', (t: string) => ({ error: 'bad', data: { [t]: 1 } })],
  ])('a token echoed %s reaches no error', async (_case, token, body) => {
    const server = await echoing((t) => ({ status: 400, body: body(t) }));
    const client = new GatewayClient({ baseUrl: server.url, token });
    const text = await published(() => client.channels.list());
    expect(text).toContain('BadRequestError');
    expect(text.toLowerCase()).not.toContain(token.toLowerCase());
  });
});

function nest(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}
