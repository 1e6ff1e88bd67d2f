import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  GatewayAbortError,
  GatewayApiError,
  GatewayConnectionError,
  GatewayError,
  GatewayTimeoutError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
} from '../../src/core/errors.js';
import { BASE, testClient, useMsw } from '../support/msw.js';

const { server } = useMsw();

describe('Errors: the service answered non-2xx', () => {
  const cases = [
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [429, RateLimitError],
    [500, InternalServerError],
    [503, InternalServerError],
    [418, GatewayApiError],
  ] as const;

  for (const [status, ErrorClass] of cases) {
    it(`maps ${status} to ${ErrorClass.name}, with the body's code, description and data`, async () => {
      server.use(
        http.get(`${BASE}/v2/channels`, () =>
          HttpResponse.json(
            { error: 'some_code', description: 'Some description', data: { a: 1 } },
            { status },
          ),
        ),
      );
      const error = await testClient({ maxRetries: 0 })
        .channels.list()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ErrorClass);
      expect(error).toBeInstanceOf(GatewayApiError);
      expect(error).toBeInstanceOf(GatewayError);
      expect(error).toMatchObject({
        name: ErrorClass.name,
        status,
        code: 'some_code',
        description: 'Some description',
        data: { a: 1 },
        method: 'GET',
        url: `${BASE}/v2/channels`,
      });
    });
  }

  it('maps an empty 4xx body by its status', async () => {
    server.use(http.get(`${BASE}/v2/channels`, () => new HttpResponse(null, { status: 403 })));
    const error = await testClient()
      .channels.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error).toMatchObject({ status: 403, code: undefined, description: undefined });
  });

  it('takes the code of an error given as an object { code }', async () => {
    server.use(
      http.get(`${BASE}/v2/channels`, () =>
        HttpResponse.json({ error: { code: 'TOO_MACH_ENTITIES' } }, { status: 403 }),
      ),
    );
    const error = await testClient()
      .channels.list()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'TOO_MACH_ENTITIES' });
  });

  it('keeps the request id the body carries', async () => {
    server.use(
      http.get(`${BASE}/v2/channels`, () =>
        HttpResponse.json({ error: 'x', request_id: 'req-42' }, { status: 400 }),
      ),
    );
    const error = await testClient()
      .channels.list()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ requestId: 'req-42' });
  });

  it('gives v3 uriNotValid as BadRequestError with its code', async () => {
    server.use(
      http.patch('https://v3.gateway.test/v3/webhooks', () =>
        HttpResponse.json(
          { error: 'uriNotValid', description: 'Provided URI is not valid URI' },
          { status: 400 },
        ),
      ),
    );
    const error = await testClient()
      .v3.webhooks.update({
        webhooksUri: 'https://crm.example/hooks',
        subscriptions: {
          messagesAndStatuses: true,
          contactsAndDealsCreation: true,
          channelsUpdates: true,
          templateStatus: true,
        },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ code: 'uriNotValid', retryable: false });
  });

  it('says 429 is retryable and carries retryAfterMs', async () => {
    server.use(
      http.get(
        `${BASE}/v2/channels`,
        () => new HttpResponse(null, { status: 429, headers: { 'retry-after': '7' } }),
      ),
    );
    const error = await testClient({ maxRetries: 0 })
      .channels.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ retryable: true, retryAfterMs: 7000 });
  });
});

describe('Errors: no response', () => {
  it('gives GatewayConnectionError for a network failure', async () => {
    server.use(http.get(`${BASE}/v2/channels`, () => HttpResponse.error()));
    const error = await testClient({ maxRetries: 0 })
      .channels.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayConnectionError);
    expect(error).toMatchObject({ method: 'GET', retryable: true });
  });

  it('gives GatewayTimeoutError, a class of its own, when an attempt runs past timeout', async () => {
    server.use(
      http.get(`${BASE}/v2/channels`, async () => {
        await new Promise((r) => setTimeout(r, 500));
        return HttpResponse.json({ data: [] });
      }),
    );
    const error = await testClient({ maxRetries: 0, timeout: 50 })
      .channels.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayTimeoutError);
    expect(error).not.toBeInstanceOf(GatewayConnectionError);
    expect(error).toMatchObject({ timeoutMs: 50 });
  });

  it('rejects with GatewayAbortError (the reason as cause, not retryable) when the caller aborts', async () => {
    server.use(
      http.get(`${BASE}/v2/channels`, async () => {
        await new Promise((r) => setTimeout(r, 500));
        return HttpResponse.json({ data: [] });
      }),
    );
    const controller = new AbortController();
    const reason = new Error('stop');
    setTimeout(() => controller.abort(reason), 20);
    const error = await testClient()
      .channels.list({ signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayAbortError);
    expect(error).toMatchObject({ cause: reason, retryable: false });
    expect((error as Error).message).toMatch(/^GET .*: aborted by the caller$/);
  });
});
