// The fake reads the CRM's reply to a contact or deal request and judges it against the reply the
// spec asks for (its own check: it shares no code with the SDK's), over real HTTP on 127.0.0.1:
// a wrong reply is no longer a plain 200.
import { createServer } from 'node:http';
import {
  buildWebhook,
  createFakeGateway,
  type DeliveryRecord,
  type FakeGateway,
} from 'messaging-gateway-sdk/testing';
import { createNodeMiddleware, WebhookHandler } from 'messaging-gateway-sdk/webhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listen } from '../support/servers.js';

let gateway: FakeGateway;
let close: () => Promise<void>;
/** What the receiver answers next: a status and a body text. */
let answer: { status: number; text: string };

beforeEach(async () => {
  gateway = await createFakeGateway();
  const receiver = await listen((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.text);
    });
  });
  close = receiver.close;
  const url = `${receiver.url}/hooks?secret=s`;
  answer = { status: 200, text: '' };
  const events = ['crm_entities.contact_add', 'crm_entities.deal_add', 'message.add'];
  const res = await fetch(`${gateway.url}/v2/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.token}` },
    body: JSON.stringify({ data: events.map((event) => ({ url, event })) }),
  });
  expect(res.status).toBe(200);
  // v3: the settings' test POST must be answered 200 before the switch is on
  const v3 = await fetch(`${gateway.url}/v3/webhooks`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${gateway.apiKey}` },
    body: JSON.stringify({ webhooksUri: url, subscriptions: { contactsAndDealsCreation: true } }),
  });
  expect(v3.status).toBe(200);
});
afterEach(async () => {
  await gateway.close();
  await close();
});

/** Delivers `body` with the receiver answering `status` and `text`; the one record made. */
async function replied(body: object, text: string, status = 200) {
  answer = { status, text };
  const made = await gateway.simulate.deliver(body);
  expect(made).toHaveLength(1);
  return made[0] as DeliveryRecord;
}

const contactAdd = buildWebhook('crm_entities.contact_add');
const dealAdd = buildWebhook('crm_entities.deal_add');

describe("the CRM's reply to crm_entities.contact_add", () => {
  it('passes when it holds the contact as the spec asks: id and name, the rest optional', async () => {
    const text = JSON.stringify({ id: 'c-1', name: 'Alice', uri: 'https://crm.example/c/1', extra: 1 });
    expect(await replied(contactAdd, text)).toMatchObject({
      status: 200,
      answer: text,
      reply: { valid: true, issues: [] },
    });
  });

  it.each([
    ['an empty object', '{}', ['id: a non-empty string is required', 'name: a string is required']],
    ['a numeric id', '{"id":7,"name":"Alice"}', ['id: a non-empty string is required']],
    ['an array', '[{"id":"c-1","name":"Alice"}]', ['the reply must be a JSON object']],
    ['text', 'created', ['the reply is not JSON']],
    ['an empty body', '', ['the reply is not JSON']],
    [
      'a wrong recipient',
      '{"id":"c","name":"A","recipient":[{"chat_id":"1"}],"uri":5}',
      ['recipient[0].chat_type: a string is required', 'uri: a string'],
    ],
  ])('fails %s, naming each wrong field', async (_name, text, issues) => {
    expect((await replied(contactAdd, text)).reply).toEqual({ valid: false, issues });
  });

  it('fails a reply answered with another status than 200, whatever its body', async () => {
    const record = await replied(contactAdd, '{"id":"c-1","name":"Alice"}', 201);
    expect(record?.reply).toEqual({ valid: false, issues: ['answered 201, not 200'] });
  });
});

describe('a reply that does not come whole', () => {
  /** The verdict on the reply of a receiver that answers 200, writes `start`, then hangs or resets. */
  async function verdictOf(start: string, then: 'hang' | 'reset') {
    const receiver = await listen((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(start, () => then === 'reset' && res.destroy());
      });
    });
    // the answer never ends, so any reply time-out gives the same verdict
    const fake = await createFakeGateway({ deliveryTimeoutMs: 500 });
    try {
      const url = `${receiver.url}/crm`;
      const res = await fetch(`${fake.url}/v2/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fake.token}` },
        body: JSON.stringify({ data: [{ url, event: 'crm_entities.contact_add' }] }),
      });
      expect(res.status).toBe(200);
      const [record] = await fake.simulate.deliver(contactAdd);
      return record?.reply;
    } finally {
      await fake.close();
      await receiver.close();
    }
  }

  it('says the answer did not end in time, when the receiver stops writing it', async () => {
    expect(await verdictOf('{"id":"c-1",', 'hang')).toEqual({
      valid: false,
      issues: ['the answer did not end within the reply time-out'],
    });
  });

  it('says the connection was cut, when the receiver resets it mid-answer', async () => {
    expect(await verdictOf('{"id":"c-1",', 'reset')).toEqual({
      valid: false,
      issues: ['the connection was cut before the answer ended'],
    });
  });

  it('says the answer is longer than the fake reads, rather than that it is not JSON', async () => {
    const text = JSON.stringify({ id: 'c-1', name: 'A'.repeat(100_000) });
    expect((await replied(contactAdd, text)).reply).toEqual({
      valid: false,
      issues: ['the answer is over 64 KiB, more than the fake reads'],
    });
  });
});

describe("the CRM's reply to crm_entities.deal_add", () => {
  it('passes with an id; checks the type of each optional field', async () => {
    expect((await replied(dealAdd, '{"id":"d-1","closed":false,"contacts":["c-1"]}')).reply).toEqual({
      valid: true,
      issues: [],
    });
    const wrong = '{"id":"d-1","closed":"no","contacts":[1],"source":null}';
    expect((await replied(dealAdd, wrong)).reply).toEqual({
      valid: false,
      issues: ['contacts[0]: a string', 'closed: a boolean'],
    });
  });
});

describe('v3 createContact and createDeal', () => {
  it('need a JSON object with an id (the shape of the CRM contact and deal routes is not shown)', async () => {
    const contact = buildWebhook('v3.createContact');
    expect((await replied(contact, '{"id":12,"name":"Alice"}')).reply).toEqual({ valid: true, issues: [] });
    expect((await replied(contact, '{"name":"Alice"}')).reply).toEqual({
      valid: false,
      issues: ['id: a non-empty string or a number is required'],
    });
    expect((await replied(buildWebhook('v3.createDeal'), 'null')).reply?.valid).toBe(false);
  });
});

describe('what is not a CRM request', () => {
  it('keeps the answer but has no reply verdict', async () => {
    const record = await replied(buildWebhook('message.add'), 'fine');
    expect(record).toMatchObject({ status: 200, answer: 'fine' });
    expect(record?.reply).toBeUndefined();
  });

  it('keeps the start of a long answer only', async () => {
    const record = await replied(buildWebhook('message.add'), 'x'.repeat(100_000));
    expect(record?.answer).toHaveLength(2048);
  });
});

describe("with the SDK's own WebhookHandler as the CRM", () => {
  it("its responder's checked reply passes", async () => {
    const hooks = new WebhookHandler({ secret: 's' });
    hooks.respond('crm_entities.contact_add', ({ data }) => ({ id: 'c-42', name: data[0]?.name ?? '' }));
    const server = await listen(createServer(createNodeMiddleware(hooks)));
    try {
      const url = `${server.url}/crm?secret=s`;
      await fetch(`${gateway.url}/v2/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.token}` },
        body: JSON.stringify({ data: [{ url, event: 'crm_entities.contact_add' }] }),
      });
      const made = await gateway.simulate.deliver(contactAdd);
      const sdk = made.find((r) => r.url === url);
      expect(sdk).toMatchObject({ status: 200, reply: { valid: true, issues: [] } });
      expect(JSON.parse(sdk?.answer ?? '')).toMatchObject({ id: 'c-42', name: 'Alice' });
    } finally {
      await server.close();
    }
  });
});
