// DESIGN, Handling: a CRM request without an idempotency key gets one derived from its kind and
// its body's bytes, so a failed dispatch after the reply never makes the responder run twice; and
// a reply the store fails to keep is still the answer (200), since a second entity is worse.
import { describe, expect, it, vi } from 'vitest';
import type { DedupeStore } from '../../src/webhooks/receive/dedupe-store.js';
import { MemoryDedupeStore } from '../../src/webhooks/receive/memory-dedupe-store.js';
import { crm } from '../support/crm.js';
import { keylessContactAdd, post } from '../support/deliveries.js';
import { fixture } from '../support/fixtures.js';
import { collecting, HOOK_URL } from '../support/handler.js';

const to = (body: unknown) => post(body, HOOK_URL);

const createContact = JSON.stringify(fixture('v3', 'createContact'));
const createDeal = JSON.stringify(fixture('v3', 'createDeal'));

/** A listener that throws the first `n` times. */
function failingTimes(n: number) {
  return vi.fn(() => {
    if (n-- > 0) throw new Error('the database is down');
  });
}

describe('A keyless CRM request gets a key derived from its kind and body', () => {
  it("v2 contact_add without meta.idempotency_key, 'await' listener fails once: 500, then the same reply, one contact", async () => {
    const contacts = crm();
    const { hooks } = collecting({ dispatch: 'await' });
    hooks.respond('crm_entities.contact_add', contacts.create);
    const listener = failingTimes(1);
    hooks.on('crm_entities.contact_add', listener);
    const first = await hooks.handle(to(keylessContactAdd()));
    const retry = await hooks.handle(to(keylessContactAdd()));
    expect([first.status, retry.status]).toEqual([500, 200]);
    expect(JSON.parse(retry.body)).toEqual({ id: 'crm-1', name: 'Alice' });
    expect([contacts.created, listener.mock.calls.length]).toEqual([1, 2]);
  });

  it("v3 createContact, 'await' listener fails once: the retry is answered with the first reply", async () => {
    const contacts = crm();
    const { hooks } = collecting({ dispatch: 'await' });
    hooks.respond('v3.createContact', contacts.create);
    hooks.on('v3.createContact', failingTimes(1));
    const first = await hooks.handle(to(createContact));
    const retry = await hooks.handle(to(createContact));
    expect([first.status, retry.status]).toEqual([500, 200]);
    expect(JSON.parse(retry.body).id).toBe('crm-1');
    expect(contacts.created).toBe(1);
  });

  it('v3 createDeal under a queue function that rejects once: 503, then queued once with the same reply, one deal', async () => {
    let deals = 0;
    let failures = 1;
    const queued: unknown[] = [];
    const { hooks } = collecting({
      dispatch: async (webhook) => {
        if (failures-- > 0) throw new Error('the queue is down');
        queued.push(webhook);
      },
    });
    hooks.respond('v3.createDeal', () => ({ id: `deal-${++deals}` }));
    const first = await hooks.handle(to(createDeal));
    const retry = await hooks.handle(to(createDeal));
    expect([first.status, retry.status]).toEqual([503, 200]);
    expect(JSON.parse(retry.body)).toEqual({ id: 'deal-1' });
    expect([deals, queued.length]).toEqual([1, 1]);
  });

  it('two keyless requests with different bodies are two requests: two contacts', async () => {
    const contacts = crm();
    const { hooks } = collecting({ dispatch: 'await' });
    hooks.respond('crm_entities.contact_add', contacts.create);
    const a = await hooks.handle(to(keylessContactAdd('Alice')));
    const b = await hooks.handle(to(keylessContactAdd('Bob')));
    expect([JSON.parse(a.body).id, JSON.parse(b.body).id]).toEqual(['crm-1', 'crm-2']);
  });

  it('the same request with its body already parsed by a framework gets the same key', async () => {
    const contacts = crm();
    const { hooks } = collecting({ dispatch: 'await' });
    hooks.respond('v3.createContact', contacts.create);
    hooks.on('v3.createContact', failingTimes(1));
    expect((await hooks.handle(to(JSON.parse(createContact)))).status).toBe(500);
    const retry = await hooks.handle(to(JSON.parse(createContact)));
    expect([retry.status, JSON.parse(retry.body).id, contacts.created]).toEqual([200, 'crm-1', 1]);
  });

  it('the same request raw and already parsed gets the same key, however its JSON is spelled', async () => {
    // A service may escape '/' and non-ASCII text ('\\/', '\\u0410') and put a BOM or spaces in:
    // the text differs from JSON.stringify of the value a framework's parser made of it.
    const spelled =
      '\uFEFF{ "createContact": {"responsibleUserId":"u-17","name":"\\u0410\\u043b\\u0438\\u0441\\u0430",' +
      '"contactData":[{"chatType":"whatsapp","chatId":"79001234567"}],"source":"auto","uri":"https:\\/\\/crm"}}';
    const parsed = JSON.parse(spelled.slice(1));
    for (const [first, retry] of [
      [spelled, parsed],
      [parsed, new TextEncoder().encode(spelled)],
    ]) {
      const contacts = crm();
      const { hooks } = collecting({ dispatch: 'await' });
      hooks.respond('v3.createContact', contacts.create);
      hooks.on('v3.createContact', failingTimes(1));
      expect((await hooks.handle(to(first))).status).toBe(500);
      const answer = await hooks.handle(to(retry));
      expect([answer.status, JSON.parse(answer.body).id, contacts.created]).toEqual([200, 'crm-1', 1]);
    }
  });

  it('the same body after the retry window is a new request: a deal deleted and added again reaches the responder', async () => {
    let now = 1_000_000;
    const dedupe = new MemoryDedupeStore({}, () => now);
    const contacts = crm();
    const { hooks } = collecting({ dispatch: 'await', dedupe });
    hooks.respond('v3.createContact', contacts.create);
    const ids = async () => JSON.parse((await hooks.handle(to(createContact))).body).id;
    expect(await ids()).toBe('crm-1');
    now += 9 * 60_000; // a retry of the same request, within the window
    expect(await ids()).toBe('crm-1');
    now += 2 * 60_000 + 1; // past 10 minutes since it was done: the user asked again
    expect(await ids()).toBe('crm-2');
    expect(contacts.created).toBe(2);
  });

  it('with dedupe off, a keyless CRM request is processed every time (no key, no store)', async () => {
    const contacts = crm();
    const { hooks, errors } = collecting({ dedupe: false });
    hooks.respond('v3.createContact', contacts.create);
    await hooks.handle(to(createContact));
    await hooks.handle(to(createContact));
    expect([contacts.created, errors]).toEqual([2, []]);
  });
});

describe('A reply the store fails to keep is still the answer', () => {
  /** A memory store whose keepReply fails, as a store that is down for a moment. */
  function keepReplyFails(): DedupeStore {
    const inner = new MemoryDedupeStore();
    return {
      claim: (key, leaseMs) => inner.claim(key, leaseMs),
      keepReply: () => Promise.reject(new Error('store down')),
      complete: (key, ttlMs, reply, token) => inner.complete(key, ttlMs, reply, token),
      release: (key, token) => inner.release(key, token),
    };
  }

  it("'await' listener fails after a reply not kept: 200 with the reply, both failures reported, the responder runs once", async () => {
    const contacts = crm();
    const { hooks, errors } = collecting({ dispatch: 'await', dedupe: keepReplyFails() });
    hooks.respond('crm_entities.contact_add', contacts.create);
    hooks.on('crm_entities.contact_add', failingTimes(1));
    const body = JSON.stringify(fixture('v2', 'crm_entities.contact_add'));
    const first = await hooks.handle(to(body));
    expect([first.status, JSON.parse(first.body)]).toEqual([200, { id: 'crm-1', name: 'Alice' }]);
    expect(errors.map(([, context]) => context.stage).sort()).toEqual(['dedupe', 'listener']);
    const repeat = await hooks.handle(to(body)); // done: answered from the store, nothing runs
    expect([repeat.status, JSON.parse(repeat.body).id, contacts.created]).toEqual([200, 'crm-1', 1]);
  });

  it('two handlers sharing the store, the queue function rejects: the first answers 200, the responder runs once', async () => {
    const contacts = crm();
    const store = keepReplyFails();
    const queue = async () => {
      throw new Error('the queue is down');
    };
    const handlers = [
      collecting({ dispatch: queue, dedupe: store }),
      collecting({ dispatch: queue, dedupe: store }),
    ];
    for (const { hooks } of handlers) hooks.respond('v3.createContact', contacts.create);
    const answers = [];
    for (const { hooks } of [...handlers, ...handlers])
      answers.push((await hooks.handle(to(createContact))).status);
    expect(answers).toEqual([200, 200, 200, 200]);
    expect(contacts.created).toBe(1);
  });
});
