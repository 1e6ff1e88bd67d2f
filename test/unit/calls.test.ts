import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { GatewayResponseError, NotFoundError } from '../../src/core/errors.js';
import { BASE, testClient, textMessage, useMsw, V3_BASE } from '../support/msw.js';

const { server, seen, settle } = useMsw();
const meta = { timestamp: 1_700_000_000 };
const ok = (data: unknown) => () => HttpResponse.json({ data, meta });

/** The one request made (besides the GET /v2/webhooks that judges the deal_add rule), body read. */
async function only() {
  await settle();
  const writes = seen.filter((s) => !(s.method === 'GET' && s.url.pathname.endsWith('/v2/webhooks')));
  const made = writes.length ? writes : seen;
  expect(made).toHaveLength(1);
  return made[0] as (typeof seen)[number];
}

describe('Messages (spec: Endpoints → Messages)', () => {
  it('send: POST /v2/messages with the body as given, JSON, Bearer token; returns request_id and chat_id', async () => {
    server.use(http.post(`${BASE}/v2/messages`, ok({ request_id: 'r-1', chat_id: '79001234567' })));
    const result = await testClient().messages.send(textMessage);
    expect(result).toEqual({ request_id: 'r-1', chat_id: '79001234567' });
    const req = await only();
    expect(req).toMatchObject({
      method: 'POST',
      body: textMessage,
      authorization: 'Bearer tok_live_0123456789abcdef',
    });
    expect(req.url.pathname).toBe('/api/v2/messages');
    expect(req.contentType).toMatch(/^application\/json/);
  });

  it('edit: PATCH /v2/messages/{message_id}; returns message_id and chat_id', async () => {
    server.use(http.patch(`${BASE}/v2/messages/m-1`, ok({ message_id: 'm-1', chat_id: 'c-1' })));
    await expect(testClient().messages.edit('m-1', { text: 'fixed' })).resolves.toEqual({
      message_id: 'm-1',
      chat_id: 'c-1',
    });
    expect(await only()).toMatchObject({ method: 'PATCH', body: { text: 'fixed' } });
  });

  it('delete: DELETE /v2/messages/{message_id} with no body', async () => {
    server.use(http.delete(`${BASE}/v2/messages/m%2F1`, ok({ message_id: 'm/1', chat_id: 'c-1' })));
    await expect(testClient().messages.delete('m/1')).resolves.toEqual({ message_id: 'm/1', chat_id: 'c-1' });
    expect(await only()).toMatchObject({ method: 'DELETE', body: undefined });
  });

  it('dump: POST /v2/messages/messages_dump; the answer is passed through', async () => {
    server.use(http.post(`${BASE}/v2/messages/messages_dump`, ok({ task_id: 't-1' })));
    await expect(testClient().messages.dump({ from: 1 })).resolves.toEqual({ task_id: 't-1' });
    expect(await only()).toMatchObject({ method: 'POST', body: { from: 1 } });
  });
});

describe('Channels (spec: Endpoints → Channels)', () => {
  const channel = {
    channel_id: 'ch-1',
    transport: 'whatsapp',
    state: 'active',
    status: 'active',
    reason: null,
    phone: '79001234567',
    username: '',
    messenger_id: 'm',
    name: 'Main',
    tier: null,
  };

  it('create: POST /v2/channels; returns channel_id, transport and, for wapi, url', async () => {
    server.use(
      http.post(
        `${BASE}/v2/channels`,
        ok([{ channel_id: 'ch-w', transport: 'wapi', url: 'https://connect.example' }]),
      ),
    );
    const created = await testClient().channels.create({ transport: 'wapi', credentials: {} });
    expect(created).toEqual([{ channel_id: 'ch-w', transport: 'wapi', url: 'https://connect.example' }]);
    expect(await only()).toMatchObject({ method: 'POST', body: { transport: 'wapi', credentials: {} } });
  });

  it('submit2fa: POST /v2/channels/{id}/auth/2fa; data null gives undefined', async () => {
    server.use(http.post(`${BASE}/v2/channels/ch-1/auth/2fa`, ok(null)));
    await expect(
      testClient().channels.submit2fa('ch-1', { two_factor_code: '1234', transport: 'tgapi' }),
    ).resolves.toBeUndefined();
    expect(await only()).toMatchObject({ body: { two_factor_code: '1234', transport: 'tgapi' } });
  });

  it('reinit: POST /v2/channels/{id}/reinit; keeps state and the undocumented tariff', async () => {
    const reinit = {
      channel_id: 'ch-1',
      transport: 'whatsapp',
      state: 'init',
      phone: '7900',
      messenger_id: 'm',
      name: 'n',
      tariff: 'pro',
    };
    server.use(http.post(`${BASE}/v2/channels/ch-1/reinit`, ok([reinit])));
    const [result] = await testClient().channels.reinit('ch-1', { credentials: {} });
    expect(result).toMatchObject({ state: 'init', tariff: 'pro' });
    expect(await only()).toMatchObject({ body: { credentials: {} } });
  });

  it('get: GET /v2/channels/{id}; returns the one element of data', async () => {
    server.use(http.get(`${BASE}/v2/channels/ch-1`, ok([channel])));
    await expect(testClient().channels.get('ch-1')).resolves.toEqual(channel);
  });

  it('get: a 200 with empty data is a GatewayResponseError (status 200, retryable), never an invented 404', async () => {
    server.use(http.get(`${BASE}/v2/channels/ch-x`, ok([])));
    const error = await testClient()
      .channels.get('ch-x')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayResponseError);
    expect(error).not.toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 200, accepted: false, retryable: true });
    expect((error as Error).message).toContain(`GET ${BASE}/v2/channels/ch-x: answer 200 unreadable`);
  });

  it('a send answered 200 { data: null }: GatewayResponseError saying it was accepted, with status and request id', async () => {
    server.use(
      http.post(`${BASE}/v2/messages`, () =>
        HttpResponse.json({ data: null }, { headers: { 'x-request-id': 'req-77' } }),
      ),
    );
    const error = await testClient()
      .messages.send(textMessage)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayResponseError);
    expect(error).toMatchObject({
      status: 200,
      requestId: 'req-77',
      accepted: true,
      retryable: false,
    });
    expect((error as Error).message).toMatch(/^POST .*answer 200 unreadable: .*do not repeat/);
  });

  it('list: GET /v2/channels; reads tolerantly (numbers as strings, enum case, unknown fields kept)', async () => {
    server.use(
      http.get(
        `${BASE}/v2/channels`,
        ok([{ ...channel, phone: 79001234567, status: 'ACTIVE', tier: 'tier_1k', brand_new: 1 }]),
      ),
    );
    const [c] = await testClient().channels.list();
    expect(c).toMatchObject({ phone: '79001234567', status: 'active', tier: 'TIER_1K', brand_new: 1 });
  });

  it('delete: DELETE /v2/channels/{id} without a query unless delete_chats is asked', async () => {
    server.use(http.delete(`${BASE}/v2/channels/ch-1`, ok(null)));
    const client = testClient();
    await client.channels.delete('ch-1');
    await client.channels.delete('ch-1', { delete_chats: true });
    expect(seen.map((s) => s.url.search)).toEqual(['', '?delete_chats=true']);
  });

  it('requestPairingCode: POST /v2/channels/{id}/pairing-code; returns the one element', async () => {
    server.use(
      http.post(
        `${BASE}/v2/channels/ch-1/pairing-code`,
        ok([{ pairing_code: 'ABCD1234', pairing_phone: '79001234567' }]),
      ),
    );
    const code = await testClient().channels.requestPairingCode('ch-1', {
      transport: 'whatsapp',
      pairing_phone: '79001234567',
    });
    expect(code).toEqual({ pairing_code: 'ABCD1234', pairing_phone: '79001234567' });
    expect(await only()).toMatchObject({ body: { transport: 'whatsapp', pairing_phone: '79001234567' } });
  });
});

describe('Webhook subscriptions (spec: Endpoints → Webhook subscriptions)', () => {
  const sub = { id: 's-1', url: 'https://crm.example/hooks', event: 'message.add' };

  it('subscribe: POST /v2/webhooks with { data: [...] }', async () => {
    server.use(http.post(`${BASE}/v2/webhooks`, ok([sub])));
    const items = [{ url: sub.url, event: 'message.add' as const }];
    await expect(testClient().webhooks.subscribe(items)).resolves.toEqual([sub]);
    expect(await only()).toMatchObject({ method: 'POST', body: { data: items } });
  });

  it('update: PATCH /v2/webhooks with { data: [{ id, url, event }] }', async () => {
    server.use(http.patch(`${BASE}/v2/webhooks`, ok([sub])), http.get(`${BASE}/v2/webhooks`, ok([sub])));
    await testClient().webhooks.update([{ id: 's-1', url: sub.url, event: 'message.add' }]);
    expect(await only()).toMatchObject({
      method: 'PATCH',
      body: { data: [{ id: 's-1', url: sub.url, event: 'message.add' }] },
    });
  });

  it('list: GET /v2/webhooks; keeps event kinds the SDK does not know', async () => {
    server.use(http.get(`${BASE}/v2/webhooks`, ok([sub, { id: 7, url: sub.url, event: 'brand.new' }])));
    await expect(testClient().webhooks.list()).resolves.toEqual([
      sub,
      { id: '7', url: sub.url, event: 'brand.new' },
    ]);
  });

  it('unsubscribe: DELETE /v2/webhooks with { data: [{ id }] }', async () => {
    server.use(http.delete(`${BASE}/v2/webhooks`, ok(null)), http.get(`${BASE}/v2/webhooks`, ok([sub])));
    await expect(testClient().webhooks.unsubscribe(['s-1', 's-2'])).resolves.toBeUndefined();
    expect(await only()).toMatchObject({ method: 'DELETE', body: { data: [{ id: 's-1' }, { id: 's-2' }] } });
  });
});

describe('API v3 webhook settings (spec: Endpoints → API v3 webhook settings)', () => {
  const settings = {
    webhooksUri: 'https://crm.example/v3',
    subscriptions: {
      messagesAndStatuses: true,
      contactsAndDealsCreation: false,
      channelsUpdates: true,
      templateStatus: false,
    },
  };

  it('get: GET /v3/webhooks with the API key', async () => {
    server.use(http.get(`${V3_BASE}/v3/webhooks`, () => HttpResponse.json(settings)));
    await expect(testClient().v3.webhooks.get()).resolves.toEqual(settings);
    expect(await only()).toMatchObject({ authorization: 'Bearer key_live_fedcba9876543210' });
  });

  it('get: reads "true"/"false" strings, wabaTemplatesStatus, and a null webhooksUri', async () => {
    server.use(
      http.get(`${V3_BASE}/v3/webhooks`, () =>
        HttpResponse.json({
          webhooksUri: null,
          subscriptions: {
            messagesAndStatuses: 'true',
            contactsAndDealsCreation: 'False',
            channelsUpdates: false,
            wabaTemplatesStatus: 'true',
          },
        }),
      ),
    );
    const got = await testClient().v3.webhooks.get();
    expect(got.webhooksUri).toBeNull();
    expect(got.subscriptions).toMatchObject({
      messagesAndStatuses: true,
      contactsAndDealsCreation: false,
      channelsUpdates: false,
      templateStatus: true,
    });
  });

  it('update: PATCH /v3/webhooks; the word ok gives undefined', async () => {
    server.use(http.patch(`${V3_BASE}/v3/webhooks`, () => HttpResponse.text('ok')));
    await expect(testClient().v3.webhooks.update(settings)).resolves.toBeUndefined();
    expect(await only()).toMatchObject({ method: 'PATCH', body: settings });
  });
});
