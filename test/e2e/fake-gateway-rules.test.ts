// The fake gateway answers and delivers as the service does for what the spec states, over raw
// HTTP on 127.0.0.1: nothing here goes through the SDK's own request checks, so every rule below
// is the fake's (the SDK gives only the list of the events it may subscribe to).
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import { V2_EVENTS } from 'messaging-gateway-sdk';
import { createFakeGateway, type FakeGateway } from 'messaging-gateway-sdk/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

let gateway: FakeGateway;
let receiver: { url: string; bodies: Record<string, unknown>[]; server: Server };

async function startReceiver(answer?: (req: IncomingMessage, res: ServerResponse) => void) {
  const bodies: Record<string, unknown>[] = [];
  const server = createServer(async (req, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    if (text) bodies.push(JSON.parse(text));
    if (answer) answer(req, res);
    else res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hooks?secret=s`, bodies, server };
}

const stopServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

beforeEach(async () => {
  gateway = await createFakeGateway({ stepMs: 1 });
  receiver = await startReceiver();
});
afterEach(async () => {
  await gateway.close();
  await stopServer(receiver.server);
});

/** A request with the fake's token (or `token`), answered as status and parsed body. */
async function api(method: string, path: string, body?: unknown, token = gateway.token) {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text && text !== 'ok' ? JSON.parse(text) : text };
}

async function activeChannel(transport = 'telegram', credentials: object = { telegram_token: 't' }) {
  const created = await api('POST', '/v2/channels', { transport, credentials });
  await gateway.drain();
  return created.body.data[0].channel_id as string;
}

/** A POST to another fake than the shared one, answered as status and parsed body. */
const postTo = (fake: FakeGateway) => (path: string, body: object) =>
  fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${fake.token}` },
    body: JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: await r.json() }));

const subscribe = (...events: string[]) =>
  api('POST', '/v2/webhooks', { data: events.map((event) => ({ url: receiver.url, event })) });

const send = (channel_id: string, extra: object = { text: 'Hi' }, recipient: object = {}) =>
  api('POST', '/v2/messages', {
    channel_id,
    recipient: { chat_type: 'whatsapp', chat_id: '79001234567', ...recipient },
    ...extra,
  });

const delivered = (event: string) => receiver.bodies.filter((b) => b.event === event);

describe('messages: edit and delete reach subscribers', () => {
  it('delivers message.edit with text and old_text, and message.delete', async () => {
    const channel = await activeChannel();
    await subscribe('message.edit', 'message.delete');
    await send(channel, { text: 'Old words' });
    await gateway.drain();
    const [message] = [...gateway.messages.values()];
    const id = message?.message_id as string;
    expect((await api('PATCH', `/v2/messages/${id}`, { text: 'New words' })).status).toBe(200);
    await gateway.drain();
    expect(delivered('message.edit')[0]?.data).toEqual([
      expect.objectContaining({ message_id: id, text: 'New words', old_text: 'Old words' }),
    ]);
    expect((await api('DELETE', `/v2/messages/${id}`)).status).toBe(200);
    await gateway.drain();
    expect(delivered('message.delete')[0]?.data).toEqual([
      expect.objectContaining({ message_id: id, crm_user_id: null, timestamp: expect.any(Number) }),
    ]);
  });
});

describe('messages: what a send must hold', () => {
  it.each([
    ['whatsapp', 4097],
    ['instagram', 1001],
  ])('accepts %s text of %i characters, then fails it with text_length_is_too_much', async (chat_type, n) => {
    const channel = await activeChannel();
    await subscribe('message.status_update');
    const chat_id = chat_type === 'whatsapp' ? '79001234567' : 'shop.customer';
    expect((await send(channel, { text: 'x'.repeat(n) }, { chat_type, chat_id })).status).toBe(200);
    await gateway.drain();
    const statuses = delivered('message.status_update').map((b) => (b.data as { status: string }[])[0]);
    expect(statuses.at(-1)).toMatchObject({ status: 'failed', reason: 'text_length_is_too_much' });
    expect(statuses.map((s) => s?.status)).not.toContain('read');
  });

  it('refuses 400 a send with no text, attachment or template', async () => {
    const channel = await activeChannel();
    expect((await send(channel, {})).status).toBe(400);
    expect(gateway.messages.size).toBe(0);
  });

  it('refuses 400 an unknown chat_type and a phone on a whatsapp chat', async () => {
    const channel = await activeChannel();
    const sms = await send(channel, { text: 'Hi' }, { chat_type: 'sms' });
    expect(sms.status).toBe(400);
    expect(sms.body.description).toContain('chat_type');
    const phone = await send(channel, { text: 'Hi' }, { chat_id: undefined, phone: '79001234567' });
    expect(phone.status).toBe(400);
    expect(phone.body.description).toContain('phone');
  });

  it('refuses a send through an unknown channel (404) or one that is not active (400)', async () => {
    expect((await send('no-such-channel')).status).toBe(404);
    const waiting = await createFakeGateway({ stepMs: 1, autoScan: false });
    try {
      const created = await fetch(`${waiting.url}/v2/channels`, {
        method: 'POST',
        headers: { authorization: `Bearer ${waiting.token}` },
        body: JSON.stringify({ transport: 'whatsapp', credentials: {} }),
      }).then((r) => r.json());
      const res = await fetch(`${waiting.url}/v2/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${waiting.token}` },
        body: JSON.stringify({
          channel_id: created.data[0].channel_id,
          recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
          text: 'Hi',
        }),
      });
      expect(res.status).toBe(400);
      expect(waiting.messages.size).toBe(0);
    } finally {
      await waiting.close();
    }
  });

  it('takes a send through a bot channel right after creating it (a token is all a bot needs)', async () => {
    const slow = await createFakeGateway({ stepMs: 10_000 });
    try {
      const call = postTo(slow);
      const created = await call('/v2/channels', {
        transport: 'telegram',
        credentials: { telegram_token: 't' },
      });
      const recipient = { chat_type: 'telegram', chat_id: '42' };
      const sent = await call('/v2/messages', {
        channel_id: created.body.data[0].channel_id,
        recipient,
        text: 'Hi',
      });
      expect(sent.status).toBe(200);
    } finally {
      await slow.close();
    }
  });

  it('sends through a channel given to createFakeGateway({ channels }), active from the start', async () => {
    const seeded = await createFakeGateway({ channels: [{ channel_id: 'ch-1', transport: 'whatsapp' }] });
    try {
      expect(seeded.channels.get('ch-1')).toMatchObject({ status: 'active', transport: 'whatsapp' });
      seeded.reset();
      expect(seeded.channels.get('ch-1')).toMatchObject({ status: 'active' });
    } finally {
      await seeded.close();
    }
  });
});

describe('webhook subscriptions (API v2)', () => {
  it('refuses 400 an event the spec does not list, and an address that is not absolute http(s)', async () => {
    expect(
      (await api('POST', '/v2/webhooks', { data: [{ url: receiver.url, event: 'nope.event' }] })).status,
    ).toBe(400);
    for (const url of ['not a url', 'ftp://127.0.0.1/x', '/relative']) {
      expect((await api('POST', '/v2/webhooks', { data: [{ url, event: 'message.add' }] })).status).toBe(400);
    }
    expect(gateway.subscriptions.size).toBe(0);
  });

  it("takes every event the SDK subscribes to: the spec's list, and channel.update of its sample list", async () => {
    const events = [...V2_EVENTS];
    expect(events).toContain('channel.update');
    const res = await subscribe(...events);
    expect(res.status).toBe(200);
    expect(res.body.data.map((s: { event: string }) => s.event)).toEqual(events);
    const made = await gateway.simulate.deliver({ event: 'channel.update', data: [{ channel_id: 'c' }] });
    expect(made.map((d) => d.status)).toEqual([200]);
  });

  it('refuses 400 a DELETE without data', async () => {
    expect((await api('DELETE', '/v2/webhooks')).status).toBe(400);
    expect((await api('DELETE', '/v2/webhooks', {})).status).toBe(400);
  });

  it('refuses deal_add alone; takes it with contact_add, in the same call or already subscribed', async () => {
    expect((await subscribe('crm_entities.deal_add')).status).toBe(400);
    expect((await subscribe('crm_entities.contact_add', 'crm_entities.deal_add')).status).toBe(200);
    expect((await subscribe('crm_entities.deal_add')).status).toBe(200);
  });

  it('keeps at most 1,000 subscriptions per account', async () => {
    const many = (n: number) =>
      Array.from({ length: n }, () => ({ url: receiver.url, event: 'message.add' }));
    expect((await api('POST', '/v2/webhooks', { data: many(1001) })).status).toBe(400);
    expect(gateway.subscriptions.size).toBe(0);
    expect((await api('POST', '/v2/webhooks', { data: many(1000) })).status).toBe(200);
    expect((await api('POST', '/v2/webhooks', { data: many(1) })).status).toBe(400);
    expect(gateway.subscriptions.size).toBe(1000);
  });
});

describe('channels', () => {
  it('refuses a 2FA code for an active channel, and sends no second active', async () => {
    const channel = await activeChannel();
    await subscribe('channel.status_update');
    const res = await api('POST', `/v2/channels/${channel}/auth/2fa`, {
      two_factor_code: '1',
      transport: 'telegram',
    });
    expect(res.status).toBe(400);
    await gateway.drain();
    expect(delivered('channel.status_update')).toEqual([]);
  });

  it('gives a pairing code only for a whatsapp channel', async () => {
    const waiting = await createFakeGateway({ stepMs: 1, autoScan: false });
    try {
      const call = postTo(waiting);
      const viber = await call('/v2/channels', { transport: 'viber', credentials: {} });
      await waiting.drain();
      const id = viber.body.data[0].channel_id;
      expect((await call(`/v2/channels/${id}/pairing-code`, { transport: 'whatsapp' })).status).toBe(400);
    } finally {
      await waiting.close();
    }
  });
});

describe('authentication and the rate limit', () => {
  it('checks the token before anything else: a wrong token is 401 whatever the body', async () => {
    expect((await api('POST', '/v2/messages', '{not json', 'wrong')).status).toBe(401);
    expect((await api('POST', '/v2/messages', '{not json')).status).toBe(400);
  });

  it('counts no refused request against a limit; each token has its own window', async () => {
    const limited = await createFakeGateway({ rateLimit: { requests: 1, intervalMs: 60_000 } });
    try {
      const get = (path: string, token: string) =>
        fetch(`${limited.url}${path}`, { headers: { authorization: `Bearer ${token}` } }).then(
          (r) => r.status,
        );
      expect(await get('/v2/channels', 'wrong')).toBe(401);
      expect(await get('/v2/channels', 'wrong')).toBe(401);
      expect(await get('/v2/channels', limited.token)).toBe(200);
      expect(await get('/v3/webhooks', limited.apiKey)).toBe(200);
      expect(await get('/v2/channels', limited.token)).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it('never keeps the body of an unauthenticated request', async () => {
    await api(
      'POST',
      '/v2/webhooks',
      { data: [{ url: 'http://x.example/', event: 'message.add' }] },
      'wrong',
    );
    expect(gateway.requests.at(-1)).toMatchObject({ status: 401, body: undefined });
  });

  it('refuses a body over 5 MiB with 413', async () => {
    const big = JSON.stringify({ text: 'x'.repeat(5 * 1024 * 1024 + 1) });
    expect((await api('POST', '/v2/messages', big)).status).toBe(413);
  });

  it('closes the connection after a 413, so the next requests of a keep-alive client succeed', async () => {
    const big = 'x'.repeat(6_000_000);
    expect((await api('POST', '/v2/messages', big)).status).toBe(413);
    for (let i = 0; i < 4; i++) expect((await api('GET', '/v2/channels')).status).toBe(200);
  });
});

describe('failNext', () => {
  it('fails one request when times is left undefined', async () => {
    gateway.failNext('GET', '/v2/channels', { status: 503, times: undefined });
    expect((await api('GET', '/v2/channels')).status).toBe(503);
    expect((await api('GET', '/v2/channels')).status).toBe(200);
  });

  it.each([NaN, 0, -1])('fails one request when times is %s', async (times) => {
    gateway.failNext('GET', '/v2/channels', { status: 503, times });
    expect((await api('GET', '/v2/channels')).status).toBe(503);
    expect((await api('GET', '/v2/channels')).status).toBe(200);
  });
});

describe('a browser cannot reach the API through another name (DNS rebinding)', () => {
  const withHost = (host: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        `${gateway.url}/v2/webhooks`,
        { headers: { host, authorization: `Bearer ${gateway.token}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject).end();
    });

  it("refuses a request whose Host is not the fake's own address", async () => {
    const port = new URL(gateway.url).port;
    expect(await withHost(`rebound.example:${port}`)).toBe(403);
    expect(await withHost('127.0.0.1')).toBe(403);
    expect(await withHost(`127.0.0.1:${port}`)).toBe(200);
    expect(await withHost(`localhost:${port}`)).toBe(200);
    expect(await withHost(`[::1]:${port}`)).toBe(200);
  });
});

describe("a receiver's answer", () => {
  it('is read up to 64 KiB: an endless answer does not hold the delivery', async () => {
    const endless = await startReceiver((_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (res.write(chunk)) {}
      };
      res.on('drain', pump);
      pump();
    });
    try {
      await api('POST', '/v2/webhooks', { data: [{ url: endless.url, event: 'message.add' }] });
      const channel = await activeChannel();
      await send(channel);
      await gateway.drain();
      expect(gateway.deliveries.find((d) => d.kind === 'message.add')?.status).toBe(200);
    } finally {
      await stopServer(endless.server);
    }
  }, 4000);
});

describe('API v3 settings', () => {
  it('keeps the switches a PATCH leaves out', async () => {
    const patch = (body: object) => api('PATCH', '/v3/webhooks', body, gateway.apiKey);
    const all = {
      messagesAndStatuses: true,
      contactsAndDealsCreation: true,
      channelsUpdates: true,
      templateStatus: true,
    };
    expect((await patch({ webhooksUri: receiver.url, subscriptions: all })).status).toBe(200);
    expect(
      (
        await patch({
          webhooksUri: receiver.url,
          subscriptions: { templateStatus: false, channelsUpdates: false },
        })
      ).status,
    ).toBe(200);
    expect(gateway.v3Settings.subscriptions).toEqual({
      ...all,
      templateStatus: false,
      channelsUpdates: false,
    });
  });
});

describe('statuses', () => {
  it('never move backwards: simulate.status refuses delivered after read', async () => {
    const manual = await createFakeGateway({
      stepMs: 1,
      autoStatuses: false,
      channels: [{ channel_id: 'ch-1' }],
    });
    try {
      const res = await fetch(`${manual.url}/v2/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${manual.token}` },
        body: JSON.stringify({
          channel_id: 'ch-1',
          recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
          text: 'Hi',
        }),
      }).then((r) => r.json());
      await manual.simulate.status(res.data.request_id, 'read');
      await expect(manual.simulate.status(res.data.request_id, 'delivered')).rejects.toThrow(/backwards/);
      expect([...manual.messages.values()][0]?.status).toBe('read');
    } finally {
      await manual.close();
    }
  });
});
