import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import { GatewayApiError, GatewayError, GatewayValidationError } from '../../src/core/errors.js';
import type { ClientOptions } from '../../src/core/options.js';
import { BASE, TOKEN, testClient, textMessage, useMsw } from '../support/msw.js';

const { server, seen } = useMsw();

/** The option path the error names, e.g. `rateLimit.requests`. */
function optionNamed(build: () => unknown): string {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayValidationError);
    expect(error).toBeInstanceOf(GatewayError);
    return (error as GatewayValidationError).issues.map((i) => i.path.join('.')).join(',');
  }
  throw new Error('expected the options to be refused');
}

const build = (options: ClientOptions) => () =>
  new GatewayClient({ baseUrl: BASE, token: TOKEN, ...options });

describe('GatewayClient options are checked at the door', () => {
  afterEach(() => vi.unstubAllEnvs());

  for (const bad of [Number.NaN, -1, 0, Number.POSITIVE_INFINITY, 2 ** 31]) {
    it(`refuses timeout ${bad}`, () => expect(optionNamed(build({ timeout: bad }))).toBe('timeout'));
  }
  for (const bad of [Number.NaN, -1, 1.5]) {
    it(`refuses maxRetries ${bad} (0 turns repeats off and is fine)`, () => {
      expect(optionNamed(build({ maxRetries: bad }))).toBe('maxRetries');
      expect(build({ maxRetries: 0 })).not.toThrow();
    });
  }
  it('refuses a NaN, negative or zero rate-limit figure, naming it', () => {
    expect(optionNamed(build({ rateLimit: { requests: Number.NaN } }))).toBe('rateLimit.requests');
    expect(optionNamed(build({ rateLimit: { requests: 0 } }))).toBe('rateLimit.requests');
    expect(optionNamed(build({ rateLimit: { intervalMs: -5 } }))).toBe('rateLimit.intervalMs');
    expect(optionNamed(build({ rateLimit: { intervalMs: 0 } }))).toBe('rateLimit.intervalMs');
    expect(optionNamed(build({ rateLimit: { maxQueue: 0 } }))).toBe('rateLimit.maxQueue');
    expect(optionNamed(build({ rateLimit: 'fast' as never }))).toBe('rateLimit');
  });
  it('refuses a limiter object without pause', () => {
    const limiter = { acquire: async () => () => {} };
    expect(optionNamed(build({ rateLimit: limiter as never }))).toBe('rateLimit.pause');
  });
  it('refuses bad backoff figures', () => {
    expect(optionNamed(build({ retryBackoff: { maxDelayMs: Number.NaN } }))).toBe('retryBackoff.maxDelayMs');
    expect(optionNamed(build({ retryBackoff: { initialDelayMs: -1 } }))).toBe('retryBackoff.initialDelayMs');
  });
  it('refuses an unknown logLevel, a GATEWAY_LOG typo, and a logger missing a method', () => {
    expect(optionNamed(build({ logLevel: 'verbose' as never }))).toBe('logLevel');
    vi.stubEnv('GATEWAY_LOG', 'loud');
    expect(optionNamed(build({}))).toBe('GATEWAY_LOG');
    expect(optionNamed(build({ logger: { info() {}, warn() {}, error() {} } as never }))).toBe(
      'logger.debug',
    );
  });
  it('refuses headers that are not strings or not valid HTTP, without showing the value', () => {
    expect(optionNamed(build({ headers: { 'x-n': 1 as never } }))).toBe('headers.x-n');
    const error = (() => {
      try {
        build({ headers: { 'x-secret': 'tok\nen-value' } })();
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error?.message).toMatch(/headers\.x-secret/);
    expect(error?.message).not.toMatch(/en-value/);
    expect(optionNamed(build({ fetch: 'nope' as never }))).toBe('fetch');
  });

  it('refuses a call’s own NaN timeout or maxRetries before any request', async () => {
    const client = testClient();
    await expect(client.channels.list({ timeout: Number.NaN })).rejects.toBeInstanceOf(
      GatewayValidationError,
    );
    await expect(client.channels.list({ maxRetries: -1 })).rejects.toThrow(/maxRetries/);
    expect(seen).toHaveLength(0);
  });
});

describe('messages.sendMany checks concurrency', () => {
  for (const bad of [Number.NaN, 0, -2, 2.5]) {
    it(`rejects concurrency ${bad} (what Number(process.env.UNSET) gives) and sends nothing`, async () => {
      server.use(
        http.post(`${BASE}/v2/messages`, () =>
          HttpResponse.json({ data: { request_id: 'r', chat_id: 'c' } }),
        ),
      );
      const error = await testClient()
        .messages.sendMany([textMessage, textMessage], { concurrency: bad })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayValidationError);
      expect((error as GatewayValidationError).issues[0]?.path).toEqual(['concurrency']);
      expect(seen).toHaveLength(0);
    });
  }
});

describe('Redirects are answers, never followed', () => {
  for (const status of [301, 302, 303, 307, 308]) {
    it(`a ${status} to another host is a GatewayApiError and nothing is sent there`, async () => {
      server.use(
        http.post(
          `${BASE}/v2/messages`,
          () =>
            new HttpResponse(null, { status, headers: { location: 'https://elsewhere.test/v2/messages' } }),
        ),
        http.all('https://elsewhere.test/*', () =>
          HttpResponse.json({ data: { request_id: 'x', chat_id: 'y' } }),
        ),
      );
      const error = await testClient()
        .messages.send(textMessage)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayApiError);
      expect(error).toMatchObject({ status, retryable: false });
      expect(seen.map((s) => `${s.method} ${s.url.host}`)).toEqual(['POST gateway.test']);
    });
  }
});
