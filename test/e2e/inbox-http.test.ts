// The inbox page's server side over real HTTP on 127.0.0.1: what it serves, the refusals that keep
// a page elsewhere from driving it, its actions' checks, and its live updates (bounded, closed
// with the gateway). The page itself runs in a browser in inbox-browser.test.ts.
import { request } from 'node:http';
import { GatewayClient } from 'messaging-gateway-sdk';
import { buildWebhook, createFakeGateway, type FakeGateway } from 'messaging-gateway-sdk/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PAGE_BYTES } from '../../src/testing/inbox/event-pages.js';
import { MAX_LISTENERS } from '../../src/testing/inbox/live-updates.js';
import { listen } from '../support/servers.js';

let gateway: FakeGateway;
let pageToken: string;

beforeEach(async () => {
  gateway = await createFakeGateway({
    autoScan: false,
    autoStatuses: false,
    stepMs: 1,
    channels: [{ channel_id: 'ch' }],
  });
  const page = await (await fetch(`${gateway.url}/`)).text();
  pageToken = /<meta name="inbox-token" content="([^"]+)">/.exec(page)?.[1] ?? '';
});
afterEach(() => gateway.close());

const action = (name: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${gateway.url}/_inbox/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-inbox-token': pageToken, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** A GET with any Host header (fetch does not let a caller set it). */
function getWithHost(path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${gateway.url}${path}`, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject).end();
  });
}

/** The page's view rebuilt from the updates so far (as inbox.js does): chats with their messages. */
function view(model: Map<string, Record<string, unknown>>) {
  const messages = [...model].filter(([k]) => k.startsWith('m:')).map(([, m]) => m);
  const chats = [...model]
    .filter(([k]) => k.startsWith('h:'))
    .map(([k, chat]) => ({ ...chat, messages: messages.filter((m) => `h:${m.chat}` === k) }));
  return { chats };
}

/** Reads server-sent updates until `until` holds for the views so far; the stream's end too. */
async function snapshots(res: Response, until: (all: unknown[]) => boolean) {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const all: unknown[] = [];
  const model = new Map<string, Record<string, unknown>>();
  let text = '';
  while (!until(all)) {
    const { value, done } = await reader.read();
    if (done) return { all, ended: true };
    text += decoder.decode(value, { stream: true });
    for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
      const data = /^data: (.*)$/m.exec(text.slice(0, end))?.[1];
      const delta = data && JSON.parse(data);
      if (delta?.set) {
        if (delta.reset) model.clear();
        for (const key of delta.del) model.delete(key);
        for (const [key, entry] of delta.set) model.set(key, entry);
        all.push(view(model));
      }
      text = text.slice(end + 2);
    }
  }
  await reader.cancel();
  return { all, ended: false };
}

describe('the inbox page is served by the fake at its own URL', () => {
  it('serves the page, its style and script, with no API token, unrecorded, framing and foreign code refused', async () => {
    const res = await fetch(`${gateway.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(pageToken).toMatch(/^[0-9a-f-]{36}$/);
    for (const [file, type] of [
      ['inbox.css', 'text/css'],
      ['inbox.js', 'text/javascript'],
      ['inbox-live.js', 'text/javascript'],
      ['inbox-log.js', 'text/javascript'],
    ]) {
      const asset = await fetch(`${gateway.url}/_inbox/${file}`);
      expect(asset.headers.get('content-type')).toContain(type);
      expect((await asset.text()).length).toBeGreaterThan(500);
    }
    expect(gateway.requests).toEqual([]);
    expect((await fetch(`${gateway.url}/_inbox/nope`)).status).toBe(404);
    // the page itself is served at / only; names of Object.prototype are no files
    for (const name of ['index.html', 'constructor', 'toString', '__proto__']) {
      expect((await fetch(`${gateway.url}/_inbox/${name}`)).status, name).toBe(404);
    }
  });

  it('answers HEAD as GET, without the body (curl -I, link checkers)', async () => {
    for (const path of ['/', '/_inbox/inbox.js', '/_inbox/inbox.css']) {
      const res = await fetch(`${gateway.url}${path}`, { method: 'HEAD' });
      expect(res.status, path).toBe(200);
      expect(await res.text()).toBe('');
    }
    expect((await fetch(`${gateway.url}/`, { method: 'HEAD' })).headers.get('content-type')).toBe(
      'text/html; charset=utf-8',
    );
  });

  it('answers only at its loopback address: a rebound host name gets 403', async () => {
    const port = new URL(gateway.url).port;
    expect(await getWithHost('/', `127.0.0.1:${port}`)).toBe(200);
    expect(await getWithHost('/', `localhost:${port}`)).toBe(200);
    expect(await getWithHost('/', `attacker.example:${port}`)).toBe(403);
  });
});

describe("the inbox's actions refuse anyone but the page", () => {
  let channelId: string;
  beforeEach(async () => {
    const client = new GatewayClient({ baseUrl: gateway.url, token: gateway.token });
    const [created] = await client.channels.create({ transport: 'whatsapp', credentials: {} });
    channelId = created?.channel_id as string;
  });

  it.each([
    ['no page token', { 'x-inbox-token': '' }, 'the page token is missing or wrong'],
    ['a wrong page token', { 'x-inbox-token': 'guessed' }, 'the page token is missing or wrong'],
    ['another origin', { origin: 'http://attacker.example' }, 'cross-origin requests are refused'],
    ['a cross-site fetch', { 'sec-fetch-site': 'cross-site' }, 'cross-site requests are refused'],
  ])('refuses %s with 403 and changes nothing', async (_name, headers, error) => {
    const res = await action('scan', { channel_id: channelId }, headers);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error });
    expect(gateway.channels.get(channelId)?.status).toBe('init');
  });

  it("scans from the page's own origin", async () => {
    const res = await action(
      'scan',
      { channel_id: channelId },
      { origin: gateway.url, 'sec-fetch-site': 'same-origin' },
    );
    expect(res.status).toBe(200);
    expect(gateway.channels.get(channelId)?.status).toBe('active');
  });

  it('checks what it is given: 400 for a bad body, 409 when the fake refuses', async () => {
    const client = new GatewayClient({ baseUrl: gateway.url, token: gateway.token });
    const { request_id } = await client.messages.send({
      channel_id: 'ch',
      recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
      text: 'hi',
    });
    const cases: [string, unknown, number][] = [
      ['status', { request_id, status: 'vanished' }, 400],
      ['status', { request_id, status: 'failed', reason: 'not_a_reason' }, 400],
      ['status', { request_id: 'unknown', status: 'read' }, 409],
      ['inbound', { channel_id: channelId, chat_id: '79001234567', text: '' }, 400],
      ['inbound', { channel_id: channelId, chat_id: '79001234567', text: 'x'.repeat(4097) }, 400],
      // instagram allows 1000 characters (the limit sends are checked against)
      [
        'inbound',
        { channel_id: channelId, chat_id: 'u1', chat_type: 'instagram', text: 'x'.repeat(1001) },
        400,
      ],
      ['inbound', '{"not json', 400],
      ['inbound', 'x'.repeat(65 * 1024), 400],
      ['scan', { channel_id: 'unknown' }, 409],
      ['nope', {}, 404],
      // names of Object.prototype are no actions
      ['constructor', {}, 404],
      ['toString', {}, 404],
      ['__proto__', {}, 404],
      ['hasOwnProperty', {}, 404],
    ];
    for (const [name, body, status] of cases) {
      expect((await action(name, body)).status, `${name} ${JSON.stringify(body).slice(0, 80)}`).toBe(status);
    }
    const failed = await action('status', { request_id, status: 'failed', reason: 'chat_is_blocked' });
    expect(failed.status).toBe(200);
    expect([...gateway.messages.values()][0]).toMatchObject({ status: 'failed', reason: 'chat_is_blocked' });
  });
});

describe("the inbox's live updates", () => {
  const events = (token = pageToken) => fetch(`${gateway.url}/_inbox/events?t=${encodeURIComponent(token)}`);

  it('need the page token', async () => {
    expect((await events('guessed')).status).toBe(403);
  });

  it('send a snapshot at once and after each change: a send, then its status', async () => {
    const res = await events();
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const client = new GatewayClient({ baseUrl: gateway.url, token: gateway.token });
    const sent = client.messages.send({
      channel_id: 'ch',
      recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
      text: 'Your order is ready',
    });
    type Snapshot = { chats: { messages: { text: string; status: string }[] }[] };
    const statusOf = (all: unknown[]) => (all.at(-1) as Snapshot | undefined)?.chats[0]?.messages[0]?.status;
    const { all } = await snapshots(res, (all) => statusOf(all) === 'accepted');
    expect((all[0] as Snapshot).chats).toEqual([]);
    expect((all.at(-1) as Snapshot).chats[0]?.messages[0]?.text).toBe('Your order is ready');
    const again = await events();
    await gateway.simulate.status((await sent).request_id, 'delivered');
    await snapshots(again, (all) => statusOf(all) === 'delivered');
  });

  it(`keep at most ${MAX_LISTENERS} pages: one more closes the oldest; close() ends every stream`, async () => {
    const streams = [];
    for (let i = 0; i <= MAX_LISTENERS; i++) streams.push(await events());
    const oldest = await snapshots(streams[0] as Response, () => false);
    expect(oldest.ended).toBe(true);
    const newest = streams.at(-1) as Response;
    const ended = snapshots(newest, () => false);
    await gateway.close();
    expect((await ended).ended).toBe(true);
    gateway = await createFakeGateway(); // afterEach closes it
  });
});

describe("the inbox's first update, with 500 long messages held", () => {
  it(`comes in events of at most ${PAGE_BYTES} bytes that together hold every message`, async () => {
    // 500 texts of 4096 characters that JSON writes as 6 bytes each: 12 MiB in all
    const text = '\u0001'.repeat(4096);
    for (let i = 0; i < 500; i++) {
      const recipient = { chat_type: 'whatsapp', chat_id: `7900000${i % 10}` };
      const res = await fetch(`${gateway.url}/v2/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.token}` },
        body: JSON.stringify({ channel_id: 'ch', recipient, text }),
      });
      expect(res.status).toBe(200);
    }
    const res = await fetch(`${gateway.url}/_inbox/events?t=${pageToken}`);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const sizes: number[] = [];
    const messages = new Map<string, { text: string }>();
    let buffered = '';
    let whole = false;
    while (!whole) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
        const data = /^data: (.*)$/m.exec(buffered.slice(0, end))?.[1] ?? '{}';
        buffered = buffered.slice(end + 2);
        sizes.push(Buffer.byteLength(data));
        const delta = JSON.parse(data);
        expect(delta.reset === true).toBe(sizes.length === 1);
        for (const [key, entry] of delta.set) if (key.startsWith('m:')) messages.set(key, entry);
        whole = !delta.more;
      }
    }
    await reader.cancel();
    console.log(
      `first update: ${sizes.length} events, ${(sizes.reduce((a, b) => a + b) / 2 ** 20).toFixed(1)} MiB`,
    );
    expect(Math.max(...sizes)).toBeLessThanOrEqual(PAGE_BYTES + 200);
    expect(messages.size).toBe(500);
    expect([...messages.values()].every((m) => m.text === text)).toBe(true);
  });
});

describe("the inbox log's opened lines", () => {
  let hookUrl: string;
  let closeHook: () => Promise<void>;
  beforeEach(async () => {
    const hook = await listen((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"name":"Alice"}'));
    });
    closeHook = hook.close;
    hookUrl = `${hook.url}/hooks?secret=s3cr3t`;
    const res = await fetch(`${gateway.url}/v2/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.token}` },
      body: JSON.stringify({ data: [{ url: hookUrl, event: 'crm_entities.contact_add' }] }),
    });
    expect(res.status).toBe(200);
  });
  afterEach(() => closeHook());

  /** The number of the log line of the last delivery, as the page is sent it. */
  async function lastLine(): Promise<number> {
    const res = await fetch(`${gateway.url}/_inbox/events?t=${pageToken}`);
    const { all } = await snapshotsOf(res);
    return (
      all
        .filter((k) => k.startsWith('d:'))
        .map((k) => Number(k.slice(2)))
        .sort((a, b) => a - b)
        .at(-1) ?? 0
    );
  }

  it('hold the body sent, the answer and the verdict on the reply; only for the page', async () => {
    await gateway.simulate.deliver(buildWebhook('crm_entities.contact_add', { data: [{ name: 'Alice' }] }));
    const id = await lastLine();
    expect((await fetch(`${gateway.url}/_inbox/log/${id}`)).status).toBe(403);
    expect((await fetch(`${gateway.url}/_inbox/log/${id}?t=guessed`)).status).toBe(403);
    const res = await fetch(`${gateway.url}/_inbox/log/${id}?t=${pageToken}`);
    expect(res.status).toBe(200);
    const detail = await res.json();
    expect(detail).toMatchObject({
      url: expect.stringMatching(/\/hooks\?secret=…$/),
      status: 200,
      failure: null,
      answer: '{"name":"Alice"}',
      replyIssues: ['id: a non-empty string is required'],
    });
    expect(JSON.parse(detail.body)).toMatchObject({
      event: 'crm_entities.contact_add',
      data: [{ name: 'Alice' }],
    });
    expect(JSON.stringify(detail)).not.toContain('s3cr3t');
  });

  it('answer 404 for a line the fake no longer holds, or a path that names none', async () => {
    for (const path of ['log/999999', 'log/0', 'log/x', 'log/1/2', 'log/']) {
      expect((await fetch(`${gateway.url}/_inbox/${path}?t=${pageToken}`)).status, path).toBe(404);
    }
  });
});

/** The keys of the first update of an event stream, once whole. */
async function snapshotsOf(res: Response) {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const all: string[] = [];
  let buffered = '';
  for (let whole = false; !whole; ) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
      const delta = JSON.parse(/^data: (.*)$/m.exec(buffered.slice(0, end))?.[1] ?? '{}');
      buffered = buffered.slice(end + 2);
      all.push(...delta.set.map(([key]: [string]) => key));
      whole = !delta.more;
    }
  }
  await reader.cancel();
  return { all };
}
