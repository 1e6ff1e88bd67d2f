import { inspect } from 'node:util';
import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import { AuthenticationError, GatewayAbortError, GatewayError } from '../../src/core/errors.js';
import { API_KEY, BASE, TOKEN, testClient, textMessage, useMsw, V3_BASE } from '../support/msw.js';

const { server, seen } = useMsw();

describe('Authentication', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('sends the v2 token as Bearer on v2 calls and the API key on v3 calls', async () => {
    server.use(
      http.get(`${BASE}/v2/channels`, () => HttpResponse.json({ data: [] })),
      http.get(`${V3_BASE}/v3/webhooks`, () => HttpResponse.json({ webhooksUri: null, subscriptions: {} })),
    );
    const client = testClient();
    await client.channels.list();
    await client.v3.webhooks.get();
    expect(seen.map((s) => s.authorization)).toEqual([`Bearer ${TOKEN}`, `Bearer ${API_KEY}`]);
  });

  it('fails at construction without a base URL', () => {
    vi.stubEnv('GATEWAY_BASE_URL', '');
    expect(() => new GatewayClient({ token: 't' })).toThrow(GatewayError);
    expect(() => new GatewayClient({ token: 't' })).toThrow(/GATEWAY_BASE_URL/);
  });

  it('reads base URL, token and API key from the environment', async () => {
    vi.stubEnv('GATEWAY_BASE_URL', BASE);
    vi.stubEnv('GATEWAY_V3_BASE_URL', V3_BASE);
    vi.stubEnv('GATEWAY_TOKEN', 'env-token-1234');
    vi.stubEnv('GATEWAY_API_KEY', 'env-key-1234');
    server.use(
      http.get(`${BASE}/v2/channels`, () => HttpResponse.json({ data: [] })),
      http.get(`${V3_BASE}/v3/webhooks`, () => HttpResponse.json({ webhooksUri: null, subscriptions: {} })),
    );
    const client = new GatewayClient();
    await client.channels.list();
    await client.v3.webhooks.get();
    expect(seen.map((s) => s.authorization)).toEqual(['Bearer env-token-1234', 'Bearer env-key-1234']);
  });

  it('fails a v2 call without a token before any request', async () => {
    vi.stubEnv('GATEWAY_TOKEN', '');
    const client = new GatewayClient({ baseUrl: BASE });
    await expect(client.messages.send(textMessage)).rejects.toThrow(/No token/);
    expect(seen).toHaveLength(0);
  });

  it('fails a v3 call without an API key before any request', async () => {
    vi.stubEnv('GATEWAY_API_KEY', '');
    const client = new GatewayClient({ baseUrl: BASE, token: 't' });
    await expect(client.v3.webhooks.get()).rejects.toThrow(/No apiKey/);
    expect(seen).toHaveLength(0);
  });

  it('asks a token function again after a 401 and repeats the call once', async () => {
    const tokens = ['old-token-1', 'new-token-2'];
    let asked = 0;
    server.use(
      http.get(`${BASE}/v2/channels`, ({ request }) =>
        request.headers.get('authorization') === 'Bearer new-token-2'
          ? HttpResponse.json({ data: [] })
          : HttpResponse.json({ error: 'unauthorized' }, { status: 401 }),
      ),
    );
    const client = testClient({ token: async () => tokens[asked++] as string, maxRetries: 0 });
    await expect(client.channels.list()).resolves.toEqual([]);
    expect(asked).toBe(2);
    expect(seen.map((s) => s.authorization)).toEqual(['Bearer old-token-1', 'Bearer new-token-2']);
  });

  it("a token function that never answers the 401's second ask ends at the caller's abort", async () => {
    let asked = 0;
    server.use(
      http.get(`${BASE}/v2/channels`, () => HttpResponse.json({ error: 'unauthorized' }, { status: 401 })),
    );
    const client = testClient({
      token: () => (asked++ === 0 ? 'old-token' : new Promise<string>(() => {})),
      maxRetries: 0,
    });
    const controller = new AbortController();
    const reason = new Error('stop');
    const call = client.channels.list({ signal: controller.signal }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(asked).toBe(2));
    controller.abort(reason);
    const error = await Promise.race([call, new Promise((resolve) => setTimeout(resolve, 1000, 'hung'))]);
    expect(error).toBeInstanceOf(GatewayAbortError);
    expect((error as GatewayAbortError).cause).toBe(reason);
  });

  it('repeats only once: a second 401 is an AuthenticationError', async () => {
    server.use(
      http.get(`${BASE}/v2/channels`, () => HttpResponse.json({ error: 'unauthorized' }, { status: 401 })),
    );
    const client = testClient({ token: () => 'always-wrong-token' });
    await expect(client.channels.list()).rejects.toBeInstanceOf(AuthenticationError);
    expect(seen).toHaveLength(2);
  });

  it('does not repeat a 401 for a fixed token', async () => {
    server.use(http.get(`${BASE}/v2/channels`, () => new HttpResponse(null, { status: 401 })));
    await expect(testClient().channels.list()).rejects.toBeInstanceOf(AuthenticationError);
    expect(seen).toHaveLength(1);
  });
});

describe('Security: no token or key in any error, log or serialized object', () => {
  const views = (value: unknown) => {
    const e = value as Error;
    return [e.message, e.stack ?? '', JSON.stringify(e), inspect(e, { depth: 10 }), String(e)].join('\n');
  };

  it('keeps credentials out of API errors, even when the service echoes them', async () => {
    server.use(
      http.get(`${BASE}/v2/channels`, ({ request }) =>
        HttpResponse.json(
          {
            error: 'bad',
            description: `token ${request.headers.get('authorization')} rejected`,
            data: { echo: TOKEN },
          },
          { status: 401 },
        ),
      ),
    );
    const error = await testClient()
      .channels.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(views(error)).not.toContain(TOKEN);
    expect(views(error)).toContain('[redacted]');
  });

  it('keeps credentials out of connection and time-out errors', async () => {
    server.use(http.get(`${BASE}/v2/channels`, () => HttpResponse.error()));
    const connection = await testClient({ maxRetries: 0 })
      .channels.list()
      .catch((e: unknown) => e);
    server.use(
      http.get(`${V3_BASE}/v3/webhooks`, async () => {
        await new Promise((r) => setTimeout(r, 200));
        return HttpResponse.json({});
      }),
    );
    const timeout = await testClient({ maxRetries: 0, timeout: 20 })
      .v3.webhooks.get()
      .catch((e: unknown) => e);
    for (const error of [connection, timeout]) {
      expect(error).toBeInstanceOf(GatewayError);
      expect(views(error)).not.toContain(TOKEN);
      expect(views(error)).not.toContain(API_KEY);
    }
  });

  it('keeps credentials out of the client object', () => {
    const client = testClient();
    const shown = JSON.stringify(client) + inspect(client, { depth: 10, showHidden: true });
    expect(shown).not.toContain(TOKEN);
    expect(shown).not.toContain(API_KEY);
  });
});
