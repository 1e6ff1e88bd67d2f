import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryDedupeStore } from '../../src/webhooks/receive/memory-dedupe-store.js';
import { crm } from '../support/crm.js';
import { messageAdd, post } from '../support/deliveries.js';
import { fixture } from '../support/fixtures.js';
import { collecting, HOOK_URL } from '../support/handler.js';

const contactAdd = JSON.stringify(fixture('v2', 'crm_entities.contact_add'));
const to = (body: unknown) => post(body, HOOK_URL);

afterEach(() => {
  vi.useRealTimers();
});

describe('A CRM responder runs at most once per key (the reply kept before any listener runs)', () => {
  it("'await': the listener fails, the retry gets the same reply, the listener runs again, one contact", async () => {
    const contacts = crm();
    const { hooks } = collecting({ dispatch: 'await' });
    hooks.respond('crm_entities.contact_add', contacts.create);
    let failures = 1;
    const listener = vi.fn(() => {
      if (failures-- > 0) throw new Error('the database is down');
    });
    hooks.on('crm_entities.contact_add', listener);
    const first = await hooks.handle(to(contactAdd));
    const retry = await hooks.handle(to(contactAdd));
    expect([first.status, retry.status]).toEqual([500, 200]);
    expect(JSON.parse(retry.body)).toEqual({ id: 'crm-1', name: 'Alice' });
    expect(contacts.created).toBe(1);
    expect(listener).toHaveBeenCalledTimes(2);
    const repeat = await hooks.handle(to(contactAdd)); // done now: the same reply, nothing runs
    expect(JSON.parse(repeat.body).id).toBe('crm-1');
    expect([contacts.created, listener.mock.calls.length]).toEqual([1, 2]);
  });

  it('a queue function that fails once: 503, then the retry is queued with the same reply, one contact', async () => {
    const contacts = crm();
    let failures = 1;
    const queued: unknown[] = [];
    const { hooks } = collecting({
      dispatch: async (webhook) => {
        if (failures-- > 0) throw new Error('the queue is down');
        queued.push(webhook);
      },
    });
    hooks.respond('crm_entities.contact_add', contacts.create);
    const first = await hooks.handle(to(contactAdd));
    const retry = await hooks.handle(to(contactAdd));
    expect([first.status, retry.status]).toEqual([503, 200]);
    expect(JSON.parse(retry.body).id).toBe('crm-1');
    expect([contacts.created, queued.length]).toEqual([1, 1]);
  });

  it('one deadline for the whole answer: responder 250 ms + listener 250 ms under 300 ms answered by 300 ms', async () => {
    vi.useFakeTimers();
    const { hooks, errors } = collecting({ dispatch: 'await', replyTimeoutMs: 300 });
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    hooks.respond('crm_entities.contact_add', async () => {
      await wait(250);
      return { id: 'crm-1', name: 'Alice' };
    });
    hooks.on('crm_entities.contact_add', () => wait(250));
    let answer: { status: number } | undefined;
    void hooks.handle(to(contactAdd)).then((a) => {
      answer = a;
    });
    await vi.advanceTimersByTimeAsync(300);
    expect(answer?.status).toBe(500);
    expect(errors.map(([e]) => e.message).join()).toMatch(
      /within replyTimeoutMs \(300 ms, the whole answer\)/,
    );
  });

  it('a late responder: the key is held until it ends and its reply kept, so the retry gets it (one contact)', async () => {
    vi.useFakeTimers();
    const contacts = crm();
    const { hooks } = collecting({ replyTimeoutMs: 20 });
    let signal: AbortSignal | undefined;
    hooks.respond('crm_entities.contact_add', async (_event, context) => {
      signal = context.signal;
      await new Promise((resolve) => setTimeout(resolve, 50)); // the CRM ignores the signal
      return contacts.create();
    });
    const first = hooks.handle(to(contactAdd));
    await vi.advanceTimersByTimeAsync(20);
    expect((await first).status).toBe(500);
    expect(signal?.aborted).toBe(true);
    const during = await hooks.handle(to(contactAdd)); // still running: the service comes back later
    expect([during.status, during.headers['retry-after']]).toEqual([409, '5']);
    await vi.advanceTimersByTimeAsync(40);
    const retry = await hooks.handle(to(contactAdd));
    expect([retry.status, JSON.parse(retry.body).id]).toEqual([200, 'crm-1']);
    expect(contacts.created).toBe(1);
  });

  it('a late responder that fails in the end: the key is released and the retry runs it again', async () => {
    vi.useFakeTimers();
    const { hooks } = collecting({ replyTimeoutMs: 20 });
    let calls = 0;
    hooks.respond('crm_entities.contact_add', async () => {
      if (++calls === 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        throw new Error('CRM said no');
      }
      return { id: 'crm-2', name: 'Alice' };
    });
    const first = hooks.handle(to(contactAdd));
    await vi.advanceTimersByTimeAsync(60);
    expect((await first).status).toBe(500);
    const retry = await hooks.handle(to(contactAdd));
    expect([retry.status, JSON.parse(retry.body).id, calls]).toEqual([200, 'crm-2', 2]);
  });
});

describe('Idempotency keys', () => {
  it('an empty or blank idempotency_key counts as none: three such deliveries are all dispatched', async () => {
    const { hooks, errors } = collecting();
    const listener = vi.fn();
    hooks.on('message.add', listener);
    for (const key of ['', '  ', '']) {
      expect((await hooks.handle(to(messageAdd(key, `text ${key.length}`)))).status).toBe(200);
    }
    await hooks.drain();
    expect(listener).toHaveBeenCalledTimes(3);
    // Said once for the kind, not once per delivery.
    expect(errors.filter(([e]) => /without meta.idempotency_key/.test(e.message))).toHaveLength(1);
  });
});

describe('MemoryDedupeStore bound', () => {
  it('maxKeys 3 keeps a done key through three claim+release cycles (a burst of 503s)', () => {
    const store = new MemoryDedupeStore({ maxKeys: 3 });
    store.claim('done-1', 1000);
    store.complete('done-1', 60_000);
    for (const key of ['a', 'b', 'c']) {
      expect(store.claim(key, 1000).state).toBe('claimed');
      store.release(key);
    }
    expect(store.claim('done-1', 1000).state).toBe('done');
  });

  it('when full, the oldest done key goes first, before any claim', () => {
    const store = new MemoryDedupeStore({ maxKeys: 3 });
    store.claim('held', 60_000);
    for (const key of ['done-1', 'done-2']) {
      store.claim(key, 1000);
      store.complete(key, 60_000);
    }
    store.claim('new', 1000); // full: done-1 goes
    expect(store.claim('held', 1000).state).toBe('processing');
    expect(store.claim('done-2', 1000).state).toBe('done');
    expect(store.claim('done-1', 1000).state).toBe('claimed');
  });

  it('a kept reply survives a release and is given to the next claim; complete supersedes it', () => {
    const store = new MemoryDedupeStore();
    const first = store.claim('k', 1000);
    store.keepReply('k', { id: 'c-1' }, 60_000);
    store.release('k', first.state === 'claimed' ? first.token : undefined);
    const second = store.claim('k', 1000);
    expect(second).toMatchObject({ state: 'claimed', reply: { id: 'c-1' } });
    store.complete('k', 60_000, { id: 'c-1' }, second.state === 'claimed' ? second.token : undefined);
    expect(store.claim('k', 1000)).toEqual({ state: 'done', reply: { id: 'c-1' } });
  });

  it('a holder whose claim expired cannot overwrite its successor’s stored reply', () => {
    let now = 0;
    const store = new MemoryDedupeStore({}, () => now);
    const stale = store.claim('k', 100);
    now = 200;
    const successor = store.claim('k', 100);
    store.complete('k', 60_000, { id: 'new' }, successor.state === 'claimed' ? successor.token : undefined);
    store.complete('k', 60_000, { id: 'stale' }, stale.state === 'claimed' ? stale.token : undefined);
    expect(store.claim('k', 100)).toEqual({ state: 'done', reply: { id: 'new' } });
  });
});
