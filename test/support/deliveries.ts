import { fixture } from './fixtures.js';

/** A v2 message.add delivery with its own idempotency key. */
export function messageAdd(key: string = crypto.randomUUID(), text = 'hello'): string {
  const body = structuredClone(fixture('v2', 'message.add--inbound-whatsapp-text')) as {
    data: { text: string }[];
    meta: { idempotency_key: string };
  };
  body.meta.idempotency_key = key;
  (body.data[0] as { text: string }).text = text;
  return JSON.stringify(body);
}

/** A POST of `body` to `url`, as `WebhookHandler.handle` takes it. */
export function post(body: unknown, url = '/hooks', headers: Record<string, string> = {}) {
  return { method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, body };
}
