// createFetchHandler takes any request with a method, an address, headers and a way to read its
// body: Azure Functions v4's own HttpRequest (not a Request), and a bare look-alike with text().
import { HttpRequest } from '@azure/functions';
import { describe, expect, it } from 'vitest';
import { createFetchHandler } from '../../src/webhooks/adapters/fetch.js';
import { messageAdd } from '../support/deliveries.js';
import { collecting, HOOK_URL } from '../support/handler.js';

const azureRequest = (body: string, url = `https://crm.azurewebsites.net/api${HOOK_URL}`) =>
  new HttpRequest({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json' },
    body: { string: body },
  });

describe("createFetchHandler and Azure Functions v4's HttpRequest", () => {
  it('answers a delivery and gives listeners its path and query', async () => {
    const { hooks } = collecting({ dispatch: 'await' });
    const urls: string[] = [];
    hooks.on('message.add', (_event, { url }) => void urls.push(url));
    const response = await createFetchHandler(hooks)(azureRequest(messageAdd()));
    expect(response.status).toBe(200);
    expect(urls).toEqual(['/api/hooks']);
  });

  it('refuses a wrong secret without reading the body', async () => {
    const { hooks } = collecting();
    const request = azureRequest(messageAdd(), 'https://crm.azurewebsites.net/api/hooks?secret=no');
    expect((await createFetchHandler(hooks)(request)).status).toBe(401);
    expect(request.bodyUsed).toBe(false);
  });
});

describe('createFetchHandler and a request that only has text() or arrayBuffer()', () => {
  const likeRequest = (read: 'text' | 'arrayBuffer', url = `https://crm.example${HOOK_URL}`) => {
    const body = messageAdd();
    let reads = 0;
    const text = async () => {
      reads++;
      return body;
    };
    const arrayBuffer = async () => {
      reads++;
      return new TextEncoder().encode(body).buffer as ArrayBuffer;
    };
    const request = {
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      ...(read === 'text' ? { text } : { arrayBuffer }),
    };
    return { request, reads: () => reads };
  };

  it.each(['text', 'arrayBuffer'] as const)('reads the body through %s()', async (read) => {
    const { hooks, errors } = collecting({ dispatch: 'await' });
    let received = 0;
    hooks.on('message.add', () => void received++);
    const { request } = likeRequest(read);
    expect((await createFetchHandler(hooks)(request)).status).toBe(200);
    expect(errors).toEqual([]);
    expect(received).toBe(1);
  });

  it('reads nothing of an unauthenticated one', async () => {
    const { hooks } = collecting();
    const { request, reads } = likeRequest('text', 'https://crm.example/hooks?secret=no');
    expect((await createFetchHandler(hooks)(request)).status).toBe(401);
    expect(reads()).toBe(0);
  });
});
