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

/** A v2 contact_add with no meta.idempotency_key, whose contact is `name` (a test makes it unique). */
export function keylessContactAdd(name = 'Alice'): string {
  const body = structuredClone(fixture('v2', 'crm_entities.contact_add')) as {
    data: { name: string }[];
    meta: Record<string, unknown>;
  };
  delete body.meta.idempotency_key;
  (body.data[0] as { name: string }).name = name;
  return JSON.stringify(body);
}
