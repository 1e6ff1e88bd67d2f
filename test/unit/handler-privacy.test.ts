import { inspect } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { messageAdd, post } from '../support/deliveries.js';
import { fixture } from '../support/fixtures.js';
import { collecting, HOOK_URL } from '../support/handler.js';

const PHONE = '79991234567';
const TEXT = 'PRIVATE-TEXT-OF-A-CUSTOMER';

/** Deliveries that fail in every way the handler reports, each carrying the phone and the text. */
function brokenDeliveries(): unknown[] {
  const good = JSON.parse(messageAdd('p-1', TEXT)) as { data: Record<string, unknown>[]; meta: object };
  (good.data[0] as { recipient: { chat_id: string } }).recipient.chat_id = PHONE;
  const badItem = structuredClone(good);
  (badItem.data[0] as Record<string, unknown>).recipient = PHONE; // a string where an object belongs
  const badMeta = { ...structuredClone(good), meta: { idempotency_key: 5, timestamp: TEXT } };
  const contact = structuredClone(fixture('v2', 'crm_entities.contact_add')) as {
    data: Record<string, unknown>[];
  };
  (contact.data[0] as Record<string, unknown>).name = TEXT;
  return [
    `{"event":"message.add","data":[{"text":"${TEXT}","phone":"${PHONE}"`, // not JSON
    JSON.stringify(badItem),
    JSON.stringify(badMeta),
    JSON.stringify({ messages: [{ text: TEXT, chatId: PHONE, isEcho: TEXT }] }), // v3, broken
    JSON.stringify(contact), // a CRM request whose reply is invalid
  ];
}

describe('Error messages and logs carry no value of a delivery: paths and kinds only', () => {
  it('reports each failure without the phone or the text, with the raw body in the context only', async () => {
    const { hooks, errors } = collecting();
    hooks.respond('crm_entities.contact_add', () => ({ id: '' }) as never);
    for (const body of brokenDeliveries()) {
      expect((await hooks.handle(post(body, HOOK_URL))).status).toBeGreaterThanOrEqual(400);
    }
    expect(errors.length).toBe(5);
    for (const [error, context] of errors) {
      for (const shown of [error.message, JSON.stringify(error), inspect(error, { depth: 0 })]) {
        expect(shown).not.toContain(PHONE);
        expect(shown).not.toContain(TEXT);
      }
      expect(JSON.stringify(context.rawBody ?? context.webhook)).toMatch(new RegExp(`${PHONE}|${TEXT}`));
    }
  });

  it('logs to the console without them when nobody listens for "error"', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { WebhookHandler } = await import('../../src/webhooks/receive/handler.js');
    const hooks = new WebhookHandler({ secret: 's' });
    for (const body of brokenDeliveries()) await hooks.handle(post(body, '/hooks?secret=s'));
    const lines = log.mock.calls.flat().map(String).join('\n');
    log.mockRestore();
    expect(lines).toContain('decode');
    expect(lines).not.toContain(PHONE);
    expect(lines).not.toContain(TEXT);
  });
});
