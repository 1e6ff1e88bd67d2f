import { describe, expect, it } from 'vitest';
import { createFetchHandler } from '../../src/webhooks/adapters/fetch.js';
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
