import { describe, expect, it, vi } from 'vitest';
import { type GatewayError, WebhookAuthError } from '../../src/core/errors.js';
import { createFetchHandler } from '../../src/webhooks/adapters/fetch.js';
import type { ErrorContext } from '../../src/webhooks/receive/events.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { messageAdd } from '../support/deliveries.js';
import { collecting, HOOK_URL } from '../support/handler.js';

const request = (body: BodyInit, url = `http://localhost${HOOK_URL}`) =>
  new Request(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } });

describe('createFetchHandler: Request → Response, never a throw', () => {
  it('answers a delivery from its unread stream', async () => {
    const { hooks } = collecting();
    const response = await createFetchHandler(hooks)(request(messageAdd()));
    expect(response.status).toBe(200);
  });

  it('answers a body a middleware already read 500 and says so on "error"', async () => {
    const { hooks, errors } = collecting();
    const used = request(messageAdd());
    await used.json();
    const response = await createFetchHandler(hooks)(used);
    expect(response.status).toBe(500);
    expect(errors[0]?.[0].message).toMatch(/a body parser of the framework read it first/);
  });

  it('answers a locked stream (a middleware holds a reader) 500, not a throw', async () => {
    const { hooks, errors } = collecting();
    const locked = request(messageAdd());
    locked.body?.getReader();
    const response = await createFetchHandler(hooks)(locked);
    expect(response.status).toBe(500);
    expect(errors).toHaveLength(1);
  });

  it('refuses a wrong secret without touching the body', async () => {
    const { hooks } = collecting();
    const wrong = request(messageAdd(), 'http://localhost/hooks?secret=no');
    expect((await createFetchHandler(hooks)(wrong)).status).toBe(401);
    expect(wrong.bodyUsed).toBe(false);
  });
});

describe('__proto__ and friends reach no prototype', () => {
  it('decodes a delivery full of __proto__ keys without polluting Object.prototype', async () => {
    const { hooks } = collecting({ dispatch: 'await' });
    const body = messageAdd().replace(
      '"meta":{',
      '"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},"meta":{"__proto__":{"polluted":1},',
    );
    expect(body).toContain('__proto__');
    const answer = await createFetchHandler(hooks)(request(body));
    expect(answer.status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('createFetchHandler: waitUntil keeps background listeners alive (Workers, Vercel)', () => {
  it('hands the background dispatch to context.waitUntil, or to the third argument (Workers: env, ctx)', async () => {
    const { hooks } = collecting();
    let finished = false;
    hooks.on('message.add', async () => {
      await new Promise((r) => setTimeout(r, 10));
      finished = true;
    });
    const kept: Promise<unknown>[] = [];
    const ctx = {
      waitUntil(promise: Promise<unknown>) {
        expect(this).toBe(ctx); // called bound, as workerd requires
        kept.push(promise);
      },
    };
    const handle = createFetchHandler(hooks);
    expect((await handle(request(messageAdd()), ctx)).status).toBe(200);
    expect((await handle(request(messageAdd()), { env: 1 }, ctx)).status).toBe(200);
    expect(kept).toHaveLength(2);
    expect(finished).toBe(false);
    await Promise.all(kept);
    expect(finished).toBe(true);
  });
});

describe('A body that never arrived is a wiring mistake, never an auth failure', () => {
  const v3 = () => JSON.stringify({ messages: [] });
  const bearer = { 'content-type': 'application/json', authorization: 'Bearer crm-key' };

  it('with only v3AuthToken set, an authenticated delivery without a body is answered 500 body_missing', async () => {
    const hooks = new WebhookHandler({ v3AuthToken: 'crm-key' });
    const errors: [GatewayError, ErrorContext][] = [];
    hooks.on('error', (error, context) => void errors.push([error, context]));
    const used = new Request('http://localhost/v3-hooks', { method: 'POST', body: v3(), headers: bearer });
    await used.text();
    const answer = await createFetchHandler(hooks)(used);
    expect([answer.status, await answer.json()]).toEqual([500, { error: 'body_missing' }]);
    expect(errors.map(([error, { stage }]) => [error.name, stage])).toEqual([['GatewayError', 'read']]);
    expect(errors[0]?.[0].message).toMatch(/read it first.*createNodeMiddleware.*createKoaMiddleware/s);
    expect(errors[0]?.[0]).not.toBeInstanceOf(WebhookAuthError);
  });

  it('with a wrong crmKey and no body, is still answered 401 first: the body is never looked at', async () => {
    const hooks = new WebhookHandler({ v3AuthToken: 'crm-key' });
    hooks.on('error', () => {});
    const answer = await hooks.handle({
      method: 'POST',
      url: '/v3-hooks',
      headers: { ...bearer, authorization: 'Bearer wrong' },
      body: undefined,
    });
    expect(answer.status).toBe(401);
  });
});

describe('Every adapter takes a function building the handler on first use (Next.js build)', () => {
  it('does not build at creation, builds once, and answers 500 while the factory throws', async () => {
    let built = 0;
    let secret: string | undefined;
    const factory = () => {
      built++;
      return new WebhookHandler({ secret }); // throws without a secret, as at `next build`
    };
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const handle = createFetchHandler(factory);
      expect(built).toBe(0);
      const early = await handle(request(messageAdd()));
      expect([early.status, await early.json()]).toEqual([500, { error: 'handler_unavailable' }]);
      secret = 'hook-secret';
      expect((await handle(request(messageAdd()))).status).toBe(200);
      expect((await handle(request(messageAdd()))).status).toBe(200);
      expect(built).toBe(2); // the failed try, then once for good
      expect(spy.mock.calls[0]?.[0]).toMatch(/the WebhookHandler factory failed: .*secret/);
    } finally {
      spy.mockRestore();
    }
  });
});
