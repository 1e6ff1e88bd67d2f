import { describe, expect, it, vi } from 'vitest';
import { type GatewayError, GatewayValidationError, WebhookParseError } from '../../src/core/errors.js';
import type { ErrorContext } from '../../src/webhooks/receive/events.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { messageAdd, post } from '../support/deliveries.js';
import { fixture } from '../support/fixtures.js';

const json = (name: string, folder: 'v2' | 'v3' = 'v2') => JSON.stringify(fixture(folder, name));

/** A handler whose errors are collected rather than logged. */
function handler(options: ConstructorParameters<typeof WebhookHandler>[0] = {}) {
  const hooks = new WebhookHandler({ allowUnauthenticated: true, ...options });
  const errors: [GatewayError, ErrorContext][] = [];
  hooks.on('error', (error, context) => errors.push([error, context]));
  return { hooks, errors };
}

describe('Answering: 200 as soon as the delivery is decoded', () => {
  it('answers before a slow listener finishes, and runs it after', async () => {
    const { hooks } = handler();
    let release!: () => void;
    let finished = false;
    hooks.on('message.add', async () => {
      await new Promise<void>((r) => (release = r));
      finished = true;
    });
    const answer = await hooks.handle(post(messageAdd()));
    expect(answer.status).toBe(200);
    expect(finished).toBe(false);
    release();
    await hooks.drain();
    expect(finished).toBe(true);
  });

  it('with awaitListeners runs listeners before answering (serverless)', async () => {
    const { hooks } = handler({ awaitListeners: true });
    let finished = false;
    hooks.on('message.add', async () => {
      await new Promise((r) => setTimeout(r, 20));
      finished = true;
    });
    await hooks.handle(post(messageAdd()));
    expect(finished).toBe(true);
  });

  it('answers 503 when too many deliveries are still being dispatched, so the service retries', async () => {
    const { hooks } = handler({ maxPendingDispatches: 2 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    hooks.on('message.add', () => gate);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await hooks.handle(post(messageAdd()))).status);
    expect(statuses).toEqual([200, 200, 503]);
    release();
    await hooks.drain();
    expect((await hooks.handle(post(messageAdd()))).status).toBe(200);
  });
});

describe('Dispatch: typed listeners per event kind', () => {
  it('gives each v2 kind its narrowed delivery, and every delivery to "webhook"', async () => {
    const { hooks } = handler({ awaitListeners: true });
    const seen: string[] = [];
    hooks.on('message.add', (w) => void seen.push(`add:${w.data[0]?.text}`));
    hooks.on('message.status_update', (w) => void seen.push(`status:${w.data[0]?.status}`));
    hooks.on('webhook', (w) => void seen.push(`any:${w.api}`));
    await hooks.handle(post(messageAdd(undefined, 'hi')));
    await hooks.handle(post(json('message.status_update--delivered')));
    expect(seen).toEqual(['add:hi', 'any:v2', 'status:delivered', 'any:v2']);
  });

  it('dispatches v3 types as v3.<type> and unknown v2 kinds as "unknown"', async () => {
    const { hooks } = handler({ awaitListeners: true });
    const seen: string[] = [];
    hooks.on('v3.messagesAndStatuses', (p) => void seen.push(`v3:${p.messages.length}+${p.statuses.length}`));
    hooks.on('v3.channelsUpdates', (p) => void seen.push(`v3ch:${p.channelsUpdates[0]?.state}`));
    hooks.on('unknown', (w) => void seen.push(`unknown:${w.unknownEvent}`));
    await hooks.handle(post(json('messages-and-statuses--both-in-one-delivery', 'v3')));
    await hooks.handle(post(json('channelsUpdates--qr-and-tier', 'v3')));
    await hooks.handle(post(json('unknown-event--kept-with-its-name')));
    expect(seen).toEqual(['v3:1+1', 'v3ch:qr', 'unknown:payment.received']);
  });

  it('reports a throwing or rejecting listener on "error"; the others still run', async () => {
    const { hooks, errors } = handler();
    const ran: string[] = [];
    hooks.on('message.add', () => {
      throw new Error('boom');
    });
    hooks.on('message.add', async () => Promise.reject(new Error('async boom')));
    hooks.on('message.add', () => void ran.push('third'));
    const answer = await hooks.handle(post(messageAdd()));
    expect(answer.status).toBe(200);
    await hooks.drain();
    expect(ran).toEqual(['third']);
    expect(errors.map(([e, c]) => [e.message, c.stage])).toEqual([
      ['A listener of message.add failed: boom', 'listener'],
      ['A listener of message.add failed: async boom', 'listener'],
    ]);
    expect(errors[0]?.[1].webhook).toMatchObject({ event: 'message.add' });
  });

  it('logs to the console when nobody listens for "error", so nothing is lost', async () => {
    const hooks = new WebhookHandler({ allowUnauthenticated: true });
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    await hooks.handle(post('not json'));
    expect(log).toHaveBeenCalledWith(expect.stringContaining('decode: Webhook body could not be decoded'));
    log.mockRestore();
  });

  it("an 'error' listener that throws or rejects is logged, not lost with the report it was given", async () => {
    const hooks = new WebhookHandler({ allowUnauthenticated: true });
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    hooks.on('error', () => {
      throw new Error('listener bug');
    });
    hooks.on('error', async () => {
      throw new Error('async listener bug');
    });
    await hooks.handle(post('not json'));
    await vi.waitFor(() => expect(log).toHaveBeenCalledTimes(2));
    const lines = log.mock.calls.map(([line]) => String(line));
    expect(lines[0]).toContain("an 'error' listener failed: listener bug");
    expect(lines[1]).toContain('async listener bug');
    log.mockRestore();
  });
});

describe('Dedupe on meta.idempotency_key', () => {
  it('answers a repeated delivery 200 and does not dispatch it again', async () => {
    const { hooks } = handler({ awaitListeners: true });
    const listener = vi.fn();
    hooks.on('message.add', listener);
    const body = messageAdd('key-1');
    const first = await hooks.handle(post(body));
    const second = await hooks.handle(post(body));
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(JSON.parse(second.body)).toEqual({ ok: true, duplicate: true });
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it('dispatches repeats when dedupe is off', async () => {
    const { hooks } = handler({ awaitListeners: true, dedupe: false });
    const listener = vi.fn();
    hooks.on('message.add', listener);
    await hooks.handle(post(messageAdd('k')));
    await hooks.handle(post(messageAdd('k')));
    expect(listener).toHaveBeenCalledTimes(2);
  });
});

describe('Bad input: answered, reported with the raw body, never dropped', () => {
  it('answers 400 to a body that is not JSON and reports it with the raw body', async () => {
    const { hooks, errors } = handler();
    const answer = await hooks.handle(post('{"event": "message.add", '));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'invalid_webhook' });
    expect(errors[0]?.[0]).toBeInstanceOf(WebhookParseError);
    expect(errors[0]?.[1]).toMatchObject({ stage: 'decode', rawBody: '{"event": "message.add", ' });
  });

  it('answers 400 to a body that does not decode', async () => {
    const { hooks, errors } = handler();
    const body = JSON.stringify(fixture('invalid', 'v2--message-add-without-recipient'));
    expect((await hooks.handle(post(body))).status).toBe(400);
    expect((errors[0]![0] as WebhookParseError).issues[0]?.path).toEqual(['data', 0, 'recipient']);
  });

  it('answers 413 over maxBodyBytes and 405 to other methods', async () => {
    const { hooks } = handler({ maxBodyBytes: 100 });
    expect((await hooks.handle(post('x'.repeat(101)))).status).toBe(413);
    expect((await hooks.handle(post('я'.repeat(60)))).status).toBe(413); // 120 bytes of UTF-8
    const get = await hooks.handle({ method: 'GET', url: '/hooks', headers: {}, body: undefined });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
  });
});

describe('Replies to CRM requests: respond()', () => {
  const contactAdd = json('crm_entities.contact_add');

  it('answers with the responder’s reply, checked against the spec’s reply schema', async () => {
    const { hooks } = handler();
    hooks.respond('crm_entities.contact_add', async (event) => ({
      id: 'crm-1',
      name: event.data[0]?.name ?? '',
    }));
    hooks.respond('v3.createDeal', (payload) => ({ id: 77, contacts: payload.createDeal.contacts }));
    const a = await hooks.handle(post(contactAdd));
    expect([a.status, JSON.parse(a.body)]).toEqual([200, { id: 'crm-1', name: 'Alice' }]);
    const b = await hooks.handle(post(json('createDeal', 'v3')));
    expect(JSON.parse(b.body)).toEqual({ id: 77, contacts: ['crm-contact-42'] });
  });

  it('answers 5xx and reports a missing, throwing, invalid or late responder', async () => {
    const missing = handler();
    expect((await missing.hooks.handle(post(contactAdd))).status).toBe(500);
    expect(missing.errors[0]?.[0].message).toMatch(/No responder for crm_entities.contact_add/);

    const throwing = handler();
    throwing.hooks.respond('crm_entities.contact_add', () => {
      throw new Error('CRM down');
    });
    expect((await throwing.hooks.handle(post(contactAdd))).status).toBe(500);
    expect(throwing.errors[0]?.[0].message).toMatch(/CRM down/);

    const invalid = handler();
    invalid.hooks.respond('crm_entities.contact_add', () => ({ name: 'no id' }) as never);
    expect((await invalid.hooks.handle(post(contactAdd))).status).toBe(500);
    expect(invalid.errors[0]?.[0]).toBeInstanceOf(GatewayValidationError);

    const late = handler({ replyTimeoutMs: 30 });
    late.hooks.respond('crm_entities.contact_add', () => new Promise(() => {}));
    expect((await late.hooks.handle(post(contactAdd))).status).toBe(500);
    expect(late.errors[0]?.[0].message).toMatch(/did not reply within replyTimeoutMs \(30 ms\)/);
  });

  it('lets the service’s retry through after a failed reply (the dedupe key is released)', async () => {
    const { hooks } = handler();
    let fail = true;
    hooks.respond('crm_entities.contact_add', () => {
      if (fail) throw new Error('first time');
      return { id: 'crm-2', name: 'Alice' };
    });
    expect((await hooks.handle(post(contactAdd))).status).toBe(500);
    fail = false;
    const retry = await hooks.handle(post(contactAdd));
    expect([retry.status, JSON.parse(retry.body).id]).toEqual([200, 'crm-2']);
  });
});
