// DESIGN "Errors": redaction scrubs what came from outside (the service's description, data,
// echoed headers and request ids, log lines, diagnostics), never the fields the SDK builds. A
// credential under 8 characters is replaced only where a whole value is it, with one warning; a
// longer one wherever it is echoed, however it is spelled. Over real HTTP on 127.0.0.1.
import { tracingChannel } from 'node:diagnostics_channel';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import { BadRequestError, type GatewayApiError } from '../../src/core/errors.js';
import type { Logger } from '../../src/core/logger.js';
import { listen } from '../support/servers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A service answering every request with `answer(res)`. */
async function service(answer: (res: ServerResponse) => void): Promise<string> {
  const server = await listen((req, res) => {
    req.resume();
    answer(res);
  });
  cleanups.push(server.close);
  return server.url;
}

const answering =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  (res: ServerResponse) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

/** A logger keeping every line. */
function capture() {
  const lines: string[] = [];
  const logger = Object.fromEntries(
    ['debug', 'info', 'warn', 'error'].map((level) => [
      level,
      (line: string) => lines.push(`${level} ${line}`),
    ]),
  ) as unknown as Logger;
  return { lines, logger };
}

/** Everything published on the request and attempt channels while `work` runs, and its error. */
async function published(work: () => Promise<unknown>): Promise<{ seen: unknown[]; error: unknown }> {
  const seen: unknown[] = [];
  const handlers = {
    start: () => {},
    end: () => {},
    asyncStart: () => {},
    error: () => {},
    asyncEnd: (ctx: unknown) => void seen.push({ ...(ctx as object) }),
  };
  const channels = ['request', 'attempt'].map((name) => tracingChannel(`messaging-gateway-sdk:${name}`));
  for (const channel of channels) channel.subscribe(handlers);
  try {
    const error = await work().then(
      () => undefined,
      (e: unknown) => e,
    );
    return { seen, error };
  } finally {
    for (const channel of channels) channel.unsubscribe(handlers);
  }
}

/** Every string an error, a log and the channels show: what a leak would be found in. */
function shown(...values: unknown[]): string {
  return JSON.stringify(values, (_key, value) =>
    value instanceof Error
      ? { ...value, message: value.message, stack: value.stack, cause: value.cause }
      : value instanceof Response
        ? undefined
        : value,
  );
}

describe('a token under 8 characters changes none of the fields the SDK builds', () => {
  it('token `t`: a 400 keeps its status, method, url, code and message', async () => {
    const url = await service(answering(400, { error: 'channelNotFound', description: 'Channel not found' }));
    const { lines, logger } = capture();
    const client = new GatewayClient({ baseUrl: url, token: 't', logger, logLevel: 'debug', maxRetries: 0 });
    const error = (await client.channels.get('ch-1').catch((e: unknown) => e)) as GatewayApiError;
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({
      status: 400,
      method: 'GET',
      url: `${url}/v2/channels/ch-1`,
      code: 'channelNotFound',
      description: 'Channel not found',
      requestSent: true,
    });
    expect(error.message).toBe(
      `GET ${url}/v2/channels/ch-1 failed with 400 (channelNotFound: Channel not found)`,
    );
    expect(error.toJSON()).toMatchObject({ status: 400, method: 'GET', code: 'channelNotFound' });
    expect(lines.filter((line) => line.startsWith('debug'))).toEqual([
      expect.stringMatching(
        /^debug \[messaging-gateway-sdk\] GET \/v2\/channels\/ch-1 400 attempt=1 duration=\d+ms request_id=-$/,
      ),
    ]);
  });

  it('token `dev`: "Device not registered" stays as the service wrote it', async () => {
    const url = await service(
      answering(400, { error: 'deviceNotRegistered', description: 'Device not registered' }),
    );
    const client = new GatewayClient({ baseUrl: url, token: 'dev', logLevel: 'off' });
    const error = await client.channels.list().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'deviceNotRegistered', description: 'Device not registered' });
  });

  it('API key `test`: the v3 code testPostNotPassed reaches `switch (error.code)` whole', async () => {
    const url = await service(
      answering(400, { error: 'testPostNotPassed', description: 'test post failed' }),
    );
    const client = new GatewayClient({
      baseUrl: url,
      token: 'token-long-enough',
      apiKey: 'test',
      logLevel: 'off',
    });
    const error = await client.v3.webhooks
      .update({ webhooksUri: 'https://crm.example/hooks', subscriptions: {} } as never)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, code: 'testPostNotPassed', description: 'test post failed' });
  });

  it('is still replaced where a whole value is it: a description, a request id, a key, `Bearer <token>`', async () => {
    const url = await service(
      answering(
        400,
        { error: 'bad', description: 'DEV', data: { dev: 'Bearer dev', other: ' dev ', kept: 'a dev' } },
        { 'x-request-id': 'dev', 'x-echo': 'bearer DEV' },
      ),
    );
    const client = new GatewayClient({ baseUrl: url, token: 'dev', logLevel: 'off' });
    const error = await client.channels.list().catch((e: unknown) => e);
    expect(error).toMatchObject({
      description: '[redacted]',
      requestId: '[redacted]',
      data: { '[redacted]': '[redacted]', other: '[redacted]', kept: 'a dev' },
      headers: { 'x-echo': '[redacted]', 'x-request-id': '[redacted]' },
    });
  });

  it('makes the client warn once that such a token is too short to be scrubbed from text', async () => {
    const url = await service(answering(200, { data: [] }));
    const { lines, logger } = capture();
    const client = new GatewayClient({ baseUrl: url, token: 'dev', logger });
    await client.channels.list();
    await client.channels.list();
    expect(lines).toEqual([
      expect.stringMatching(
        /^warn .*token \(GATEWAY_TOKEN\) is under 8 characters: too short to scrub from text/,
      ),
    ]);
    const long = capture();
    await new GatewayClient({
      baseUrl: url,
      token: 'long-enough-token',
      logger: long.logger,
    }).channels.list();
    expect(long.lines).toEqual([]);
  });
});

describe('a long token echoed in another spelling reaches no error, log line or diagnostics message', () => {
  const token = 'Tok/en&Secret+2024xyz';
  const bytes = [...new TextEncoder().encode(token)];
  const spellings = {
    'HTML decimal references': bytes.map((b) => `&#${b};`).join(''),
    'HTML hex references': bytes.map((b) => `&#x${b.toString(16)};`).join(''),
    'HTML escaped as escapers do': token
      .replace(/&/g, '&amp;')
      .replace(/\//g, '&#x2F;')
      .replace(/\+/g, '&#43;'),
    'percent-encoded byte by byte': bytes.map((b) => `%${b.toString(16).toUpperCase()}`).join(''),
    'percent-encoded in lower case': bytes.map((b) => `%${b.toString(16)}`).join(''),
    'JSON \\u escapes (a text body, a header, a JSON document inside a string)': bytes
      .map((b) => `\\u${b.toString(16).padStart(4, '0')}`)
      .join(''),
    'JSON with its slashes escaped (as PHP writes it)': token.replace(/\//g, '\\/'),
    'base64 of Bearer <token>': btoa(`Bearer ${token}`),
    'base64url of Bearer <token>': btoa(`Bearer ${token}`).replace(/\+/g, '-').replace(/\//g, '_'),
    'base64 inside a JSON document': btoa(`{"authorization":"Bearer ${token}"}`),
  };
  /** Where the token's own characters start in a base64 spelling: after its prefix's. */
  const tokenAt = (how: string) => {
    const prefix = how.includes('JSON') ? '{"authorization":"Bearer ' : 'Bearer ';
    return Math.ceil((prefix.length * 4) / 3) + 3;
  };

  for (const [how, spelled] of Object.entries(spellings)) {
    it(how, async () => {
      const { lines, logger } = capture();
      const refusing = await service(
        answering(
          400,
          { error: 'bad', description: `you sent ${spelled}`, data: { echo: [spelled], [spelled]: 1 } },
          { 'x-request-id': `rq-${spelled}`, 'x-echo': spelled },
        ),
      );
      const accepting = await service(answering(200, { data: [] }, { 'x-request-id': `rq-${spelled}` }));
      const client = new GatewayClient({
        baseUrl: refusing,
        token,
        logger,
        logLevel: 'debug',
        maxRetries: 0,
      });
      const refused = await published(() => client.channels.list());
      const accepted = await published(() =>
        client.withOptions({ baseUrl: accepting }).channels.list().withResponse(),
      );
      const text = shown(refused, accepted, lines);
      expect(text).toContain('[redacted]');
      expect(text).toContain('BadRequestError');
      expect(text).toContain('rq-');
      for (const leak of [token, spelled, encodeURIComponent(token)]) {
        expect(text).not.toContain(leak);
        expect(text).not.toContain(JSON.stringify(leak).slice(1, -1)); // as `shown` writes it
      }
      // what is left of a base64 spelling is at most the characters next to the token's own
      if (how.startsWith('base64'))
        expect(text).not.toContain(spelled.slice(tokenAt(how), tokenAt(how) + 12));
    });
  }
});
