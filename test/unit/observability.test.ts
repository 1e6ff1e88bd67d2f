import { readFileSync } from 'node:fs';
import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuthenticationError, GatewayValidationError } from '../../src/core/errors.js';
import { type Logger, maskPhones } from '../../src/core/logger.js';
import { VERSION } from '../../src/version.js';
import { API_KEY, BASE, TOKEN, testClient, textMessage, useMsw, V3_BASE } from '../support/msw.js';

const { server, seen } = useMsw();

/** A logger that keeps every line, by level. */
function capture() {
  const lines: { level: string; line: string }[] = [];
  const logger = Object.fromEntries(
    ['debug', 'info', 'warn', 'error'].map((level) => [level, (line: string) => lines.push({ level, line })]),
  ) as unknown as Logger;
  return { lines, logger };
}

const sent = () => HttpResponse.json({ data: { request_id: 'req-1', chat_id: '79001234567' } });

describe('Logging: logger, logLevel and GATEWAY_LOG', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('at debug logs every attempt: method, path, status, attempt, duration and request id', async () => {
    server.use(http.post(`${BASE}/v2/messages`, sent));
    const { lines, logger } = capture();
    await testClient({ logger, logLevel: 'debug' }).messages.send(textMessage);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.level).toBe('debug');
    expect(lines[0]?.line).toMatch(
      /^\[messaging-gateway-sdk\] POST \/v2\/messages 200 attempt=1 duration=\d+ms request_id=req-1$/,
    );
  });

  it('at warn (the default) logs retries and 429s, and no attempt', async () => {
    let first = true;
    server.use(
      http.get(`${BASE}/v2/channels`, () => {
        if (!first) return HttpResponse.json({ data: [] });
        first = false;
        return new HttpResponse(null, { status: 429, headers: { 'retry-after': '0' } });
      }),
    );
    const { lines, logger } = capture();
    await testClient({ logger, logLevel: undefined }).channels.list();
    expect(lines.map((l) => l.level)).toEqual(['warn', 'warn']);
    expect(lines[0]?.line).toMatch(/GET \/v2\/channels: 429, holding new requests for 0 ms/);
    expect(lines[1]?.line).toMatch(/GET \/v2\/channels: 429, retry 1 of 2 in 0 ms/);
  });

  it('takes its level from GATEWAY_LOG, and logs nothing at off', async () => {
    server.use(http.get(`${BASE}/v2/channels`, () => HttpResponse.json({ data: [] })));
    vi.stubEnv('GATEWAY_LOG', 'debug');
    const on = capture();
    await testClient({ logger: on.logger, logLevel: undefined }).channels.list();
    expect(on.lines).toHaveLength(1);
    vi.stubEnv('GATEWAY_LOG', 'off');
    const off = capture();
    await testClient({ logger: off.logger, logLevel: undefined }).channels.list();
    expect(off.lines).toHaveLength(0);
  });

  it('never logs a token, an API key, a message text or a full phone', async () => {
    server.use(
      http.post(`${BASE}/v2/messages`, () =>
        HttpResponse.json(
          { error: `bad ${TOKEN}`, description: 'phone 79001234567 text Hello' },
          { status: 401, headers: { 'x-request-id': '79001234567' } },
        ),
      ),
      http.get(`${V3_BASE}/v3/webhooks`, () => HttpResponse.json({ webhooksUri: null, subscriptions: {} })),
    );
    const { lines, logger } = capture();
    const client = testClient({ logger, logLevel: 'debug', token: async () => TOKEN });
    await expect(client.messages.send(textMessage)).rejects.toBeInstanceOf(AuthenticationError);
    await client.v3.webhooks.get();
    const all = lines.map((l) => l.line).join('\n');
    expect(lines.length).toBeGreaterThan(2);
    for (const secret of [TOKEN, API_KEY, 'Hello', '79001234567']) expect(all).not.toContain(secret);
    expect(all).toContain('…4567');
  });

  it('masks phones to their last 4 digits but keeps UUIDs whole', () => {
    expect(maskPhones('to +79001234567 and 0079001234567')).toBe('to …4567 and …4567');
    expect(maskPhones('request_id=12345678-1234-4234-8234-123456789012')).toBe(
      'request_id=12345678-1234-4234-8234-123456789012',
    );
  });
});

describe('.withResponse() on every call', () => {
  it('gives { data, response, requestId }, the request id from the x-request-id header', async () => {
    server.use(
      http.get(`${BASE}/v2/channels`, () =>
        HttpResponse.json({ data: [] }, { headers: { 'x-request-id': 'rq-9' } }),
      ),
    );
    const { data, response, requestId } = await testClient().channels.list().withResponse();
    expect(data).toEqual([]);
    expect(response.status).toBe(200);
    expect(requestId).toBe('rq-9');
  });

  it('takes a send’s request_id when there is no header; the plain await still gives the data', async () => {
    server.use(http.post(`${BASE}/v2/messages`, sent));
    const client = testClient();
    const answer = await client.messages.send(textMessage).withResponse();
    expect(answer.requestId).toBe('req-1');
    expect(answer.data).toEqual({ request_id: 'req-1', chat_id: '79001234567' });
    await expect(client.messages.send(textMessage)).resolves.toEqual(answer.data);
  });

  it('works on v3 calls, on calls without data, and rejects as the call does', async () => {
    server.use(
      http.patch(`${V3_BASE}/v3/webhooks`, () => HttpResponse.text('ok')),
      http.delete(`${BASE}/v2/channels/c1`, () => HttpResponse.json({ data: null })),
    );
    const client = testClient();
    const settings = {
      webhooksUri: 'https://crm.example/v3',
      subscriptions: {
        messagesAndStatuses: true,
        contactsAndDealsCreation: false,
        channelsUpdates: false,
        templateStatus: false,
      },
    };
    await expect(client.v3.webhooks.update(settings).withResponse()).resolves.toMatchObject({
      data: undefined,
    });
    const deleted = await client.channels.delete('c1').withResponse();
    expect(deleted.response.status).toBe(200);
    await expect(
      client.messages.send({ ...textMessage, text: 'x'.repeat(5000) }).withResponse(),
    ).rejects.toBeInstanceOf(GatewayValidationError);
  });
});

describe('User-Agent and extra headers', () => {
  it('sends User-Agent: messaging-gateway-sdk/<version> node/<version>', async () => {
    server.use(http.get(`${BASE}/v2/channels`, () => HttpResponse.json({ data: [] })));
    await testClient().channels.list();
    expect(seen[0]?.headers.get('user-agent')).toBe(
      `messaging-gateway-sdk/${VERSION} node/${process.versions.node}`,
    );
  });

  it('keeps VERSION equal to package.json', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });

  it('adds the client’s headers and a call’s own, the call’s winning; Authorization stays the client’s', async () => {
    server.use(http.get(`${BASE}/v2/channels`, () => HttpResponse.json({ data: [] })));
    const client = testClient({ headers: { 'X-Tenant': 'acme', 'x-trace': 'client' } });
    await client.channels.list({ headers: { 'X-Trace': 'call', Authorization: 'Bearer other' } });
    await client.channels.list();
    const [first, second] = seen.map((s) => s.headers);
    expect(first?.get('x-tenant')).toBe('acme');
    expect(first?.get('x-trace')).toBe('call');
    expect(first?.get('authorization')).toBe(`Bearer ${TOKEN}`);
    expect(second?.get('x-trace')).toBe('client');
  });
});
