import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { GatewayValidationError } from '../../src/core/errors.js';
import type { SendMessageParams } from '../../src/schemas/messages.js';
import { BASE, testClient, useMsw, V3_BASE } from '../support/msw.js';

const { server, seen } = useMsw();
const client = () => testClient();

beforeEach(() => {
  // Any call that gets through answers a plausible success for its path.
  server.use(
    http.all(`${BASE}/*`, ({ request }) => {
      const path = new URL(request.url).pathname;
      if (path.endsWith('/v2/messages'))
        return HttpResponse.json({ data: { request_id: 'r', chat_id: 'c' } });
      if (path.includes('/v2/messages/'))
        return HttpResponse.json({ data: { message_id: 'm', chat_id: 'c' } });
      if (path.endsWith('/pairing-code'))
        return HttpResponse.json({ data: [{ pairing_code: 'X', pairing_phone: '1' }] });
      return HttpResponse.json({ data: [] });
    }),
    http.all(`${V3_BASE}/*`, () => HttpResponse.text('ok')),
  );
});

/** Expects a GatewayValidationError with an issue at `path` whose message matches, and no request. */
async function rejects(call: Promise<unknown>, path: string, message?: RegExp) {
  const error = await call.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(GatewayValidationError);
  const issues = (error as GatewayValidationError).issues;
  const at = issues.filter((i) => i.path.join('.') === path);
  expect(at, `issues: ${JSON.stringify(issues)}`).not.toHaveLength(0);
  if (message) expect(at.map((i) => i.message).join(' | ')).toMatch(message);
  expect(seen).toHaveLength(0);
}

/** Expects the call to pass validation and reach the service. */
async function passes(call: Promise<unknown>) {
  await call;
  expect(seen).toHaveLength(1);
}

const to = (chat_type: string, extra: Record<string, unknown> = {}) =>
  ({ channel_id: 'ch', recipient: { chat_type, chat_id: '79001234567', ...extra } }) as const;
const send = (m: unknown) => client().messages.send(m as SendMessageParams);

describe('Rule: exactly one of text, attachment or template', () => {
  it('rejects text with an attachment, with the spec’s error text', () =>
    rejects(
      send({ ...to('whatsapp'), text: 'a', attachment: { url: 'https://f.example/a.pdf' } }),
      'attachment',
      /Cannot provide more that one of text, attachment or template/,
    ));
  it('rejects a message with none of them', () =>
    rejects(send(to('whatsapp')), 'text', /one of text, attachment or template/));
  it('passes a template alone', () =>
    passes(send({ ...to('whatsapp'), template: { id: 't-1', values: ['a'] } })));
});

describe('Rule: text length per chat type (counted in UTF-16 code units)', () => {
  for (const chat of ['whatsapp', 'telegram', 'max'] as const) {
    it(`passes 4096 characters for ${chat}`, () => passes(send({ ...to(chat), text: 'x'.repeat(4096) })));
    it(`rejects 4097 characters for ${chat}`, () =>
      rejects(send({ ...to(chat), text: 'x'.repeat(4097) }), 'text', /at most 4096/));
  }
  it('passes 1000 characters for instagram', () =>
    passes(send({ ...to('instagram', { chat_id: 'shop' }), text: 'x'.repeat(1000) })));
  it('rejects 1001 characters for instagram', () =>
    rejects(
      send({ ...to('instagram', { chat_id: 'shop' }), text: 'x'.repeat(1001) }),
      'text',
      /at most 1000/,
    ));
  it('counts an emoji as two, as Telegram does: 2048 pass, 2049 fail', async () => {
    await passes(send({ ...to('telegram'), text: '😀'.repeat(2048) }));
    seen.length = 0;
    await rejects(send({ ...to('telegram'), text: '😀'.repeat(2049) }), 'text');
  });
});

describe('Rule: recipient per chat type', () => {
  it('rejects a phone with +', () =>
    rejects(
      send({ ...to('telegram', { chat_id: undefined, phone: '+79001234567' }), text: 'a' }),
      'recipient.phone',
      /digits only/,
    ));
  it('passes a phone of digits for telegram', () =>
    passes(send({ ...to('telegram', { chat_id: undefined, phone: '79001234567' }), text: 'a' })));
  it('passes a phone of digits for max', () =>
    passes(send({ ...to('max', { chat_id: undefined, phone: '79001234567' }), text: 'a' })));
  it('rejects a phone for whatsapp chats', () =>
    rejects(
      send({ ...to('whatsapp', { phone: '79001234567' }), text: 'a' }),
      'recipient.phone',
      /only for telegram and max/,
    ));
  it('rejects a username with @', () =>
    rejects(
      send({ ...to('telegram', { chat_id: undefined, username: '@bob' }), text: 'a' }),
      'recipient.username',
      /without the leading @/,
    ));
  it('passes a username without @ for telegram', () =>
    passes(send({ ...to('telegram', { chat_id: undefined, username: 'bob' }), text: 'a' })));
  it('rejects a username for max chats', () =>
    rejects(
      send({ ...to('max', { username: 'bob' }), text: 'a' }),
      'recipient.username',
      /only for telegram/,
    ));
  it('rejects a whatsapp chat_id that is not digits', () =>
    rejects(
      send({ ...to('whatsapp', { chat_id: '+7900' }), text: 'a' }),
      'recipient.chat_id',
      /digits only/,
    ));
  it('rejects a viber chat_id that is not digits', () =>
    rejects(send({ ...to('viber', { chat_id: '7900-1' }), text: 'a' }), 'recipient.chat_id', /digits only/));
  it('rejects an instagram chat_id with @', () =>
    rejects(
      send({ ...to('instagram', { chat_id: '@shop' }), text: 'a' }),
      'recipient.chat_id',
      /without the leading @/,
    ));
  it('rejects a recipient with no chat_id, username or phone', () =>
    rejects(send({ channel_id: 'ch', recipient: { chat_type: 'vk' }, text: 'a' }), 'recipient.chat_id'));
  it('rejects an unknown chat type', () => rejects(send({ ...to('fax'), text: 'a' }), 'recipient.chat_type'));
});

describe('Rule: wapi keyboard', () => {
  const wapi = (buttons: unknown[]) => send({ ...to('whatsapp'), text: 'pick', keyboard: { buttons } });
  it('passes button text of 20 characters', () => passes(wapi([{ text: 'x'.repeat(20), payload: 'p' }])));
  it('rejects button text of 21 characters', () =>
    rejects(wapi([{ text: 'x'.repeat(21), payload: 'p' }]), 'keyboard.buttons.0.text', /20/));
  it('passes 11 buttons: the service takes the first 10', () =>
    passes(wapi(Array.from({ length: 11 }, (_, i) => ({ text: `b${i}`, payload: `${i}` })))));
  it('rejects a button without payload', () => rejects(wapi([{ text: 'a' }]), 'keyboard.buttons.0.payload'));
});

describe('Rule: telegram-bot keyboard', () => {
  const tg = (keyboard: unknown) => send({ ...to('telegram'), text: 'pick', keyboard });
  it('passes button text of 64 characters', () =>
    passes(tg({ reply_markup: 'inline', buttons: [{ text: 'x'.repeat(64), callback_data: 'a' }] })));
  it('rejects button text of 65 characters', () =>
    rejects(tg({ buttons: [{ text: 'x'.repeat(65) }] }), 'keyboard.buttons.0.text', /64/));
  it('passes callback_data of 64 bytes', () =>
    passes(tg({ buttons: [{ text: 'a', callback_data: 'я'.repeat(32) }] })));
  it('rejects callback_data of 65 bytes (UTF-8)', () =>
    rejects(
      tg({ buttons: [{ text: 'a', callback_data: `${'я'.repeat(32)}x` }] }),
      'keyboard.buttons.0.callback_data',
      /1 to 64 bytes/,
    ));
  it('rejects empty callback_data', () =>
    rejects(tg({ buttons: [{ text: 'a', callback_data: '' }] }), 'keyboard.buttons.0.callback_data'));
  it('rejects reply_markup other than inline or reply', () =>
    rejects(tg({ reply_markup: 'grid', buttons: [] }), 'keyboard.reply_markup'));
  it('rejects a reply button without text', () =>
    rejects(
      tg({ reply_markup: 'reply', buttons: [{ url: 'https://a.example' }] }),
      'keyboard.buttons.0.text',
      /reply buttons need text/,
    ));
  it('passes remove_keyboard alone', () => passes(tg({ remove_keyboard: true })));
});

describe('Rule: MAX-bot keyboard', () => {
  const max = (buttons: unknown) => send({ ...to('max'), text: 'pick', keyboard: { buttons } });
  it('passes rows of valid buttons', () =>
    passes(
      max([
        [{ type: 'callback', text: 'Yes', payload: 'y', intent: 'positive' }],
        [
          { type: 'link', text: 'Site', url: 'https://shop.example' },
          { type: 'message', text: 'Hi' },
        ],
      ]),
    ));
  it('rejects a one-dimensional array', () =>
    rejects(max([{ type: 'message', text: 'Hi' }]), 'keyboard.buttons.0', /rows/));
  it('rejects a callback button without payload', () =>
    rejects(max([[{ type: 'callback', text: 'Yes' }]]), 'keyboard.buttons.0.0.payload'));
  it('rejects a link button without url', () =>
    rejects(max([[{ type: 'link', text: 'Site' }]]), 'keyboard.buttons.0.0.url'));
  it('rejects an unknown intent', () =>
    rejects(max([[{ type: 'message', text: 'Hi', intent: 'angry' }]]), 'keyboard.buttons.0.0.intent'));
  it('rejects an unknown type', () =>
    rejects(max([[{ type: 'poll', text: 'Hi' }]]), 'keyboard.buttons.0.0.type'));
});

describe('Rule: keyboards only where the spec has them', () => {
  it('rejects a keyboard for vk chats', () =>
    rejects(send({ ...to('vk'), text: 'a', keyboard: { buttons: [] } }), 'keyboard', /not supported for vk/));
});

describe('Rule: attachment and template', () => {
  it('rejects an attachment without url', () =>
    rejects(send({ ...to('whatsapp'), attachment: { name: 'a.pdf' } }), 'attachment.url'));
  it('passes an attachment with a url', () =>
    passes(send({ ...to('whatsapp'), attachment: { url: 'https://files.example/a.pdf', name: 'a.pdf' } })));
  it('passes a declared size of 50 MB', () =>
    passes(
      send({ ...to('whatsapp'), attachment: { url: 'https://files.example/a.mp4', size: 50 * 1024 * 1024 } }),
    ));
  it('rejects a declared size over 50 MB', () =>
    rejects(
      send({
        ...to('whatsapp'),
        attachment: { url: 'https://files.example/a.mp4', size: 50 * 1024 * 1024 + 1 },
      }),
      'attachment.size',
      /50 MB/,
    ));
  it('rejects a template without id', () =>
    rejects(send({ ...to('whatsapp'), template: { values: ['a'] } }), 'template.id'));
});

describe('Rule: edit needs text or attachment', () => {
  it('rejects an edit with neither', () =>
    rejects(client().messages.edit('m', { crm_user_id: 'u' }), 'text', /text or attachment/));
  it('passes an edit with text', () => passes(client().messages.edit('m', { text: 'x' })));
});

describe('Rule: channels', () => {
  const create = (p: unknown) => client().channels.create(p as never);
  it('rejects telegram credentials without telegram_token', () =>
    rejects(create({ transport: 'telegram', credentials: {} }), 'credentials.telegram_token'));
  it('passes telegram credentials with a token', () =>
    passes(create({ transport: 'telegram', credentials: { telegram_token: '123:abc' } })));
  it('rejects vk groups whose id is not a number', () =>
    rejects(
      create({ transport: 'vk', credentials: { code: 'c', groups: [{ name: 'g', id: '1' }] } }),
      'credentials.groups.0.id',
    ));
  it('rejects instAPI credentials missing page_id', () =>
    rejects(
      create({ transport: 'instAPI', credentials: { username: 'u', inst_id: 'i', user_token: 't' } }),
      'credentials.page_id',
    ));
  it('rejects an unknown transport', () =>
    rejects(create({ transport: 'fax', credentials: {} }), 'transport'));
  it('rejects 2fa for maxbot', () =>
    rejects(
      client().channels.submit2fa('ch', { two_factor_code: '1', transport: 'maxbot' as never }),
      'transport',
      /but maxbot/,
    ));
  it('passes 2fa for tgapi', () =>
    passes(client().channels.submit2fa('ch', { two_factor_code: '1', transport: 'tgapi' })));
  it('rejects a pairing code for telegram', () =>
    rejects(
      client().channels.requestPairingCode('ch', { transport: 'telegram' as never }),
      'transport',
      /whatsapp/,
    ));
  it('rejects a pairing_phone with +', () =>
    rejects(
      client().channels.requestPairingCode('ch', { transport: 'whatsapp', pairing_phone: '+7900' }),
      'pairing_phone',
      /digits only/,
    ));
  it('passes a pairing_phone of digits', () =>
    passes(
      client().channels.requestPairingCode('ch', { transport: 'whatsapp', pairing_phone: '79001234567' }),
    ));
});

describe('Rule: subscriptions', () => {
  const url = 'https://crm.example/hooks';
  it('rejects an event not in the spec’s list', () =>
    rejects(client().webhooks.subscribe([{ url, event: 'message.foo' as never }]), '0.event'));
  it('rejects deal_add without contact_add, having read the account (it has none)', async () => {
    const error = await client()
      .webhooks.subscribe([{ url, event: 'crm_entities.deal_add' }])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayValidationError);
    expect((error as GatewayValidationError).issues).toMatchObject([
      { path: [0, 'event'], message: expect.stringMatching(/deal_add needs crm_entities.contact_add/) },
    ]);
    expect(seen.map((s) => s.method)).toEqual(['GET']);
  });
  it('passes deal_add together with contact_add', () =>
    passes(
      client().webhooks.subscribe([
        { url, event: 'crm_entities.contact_add' },
        { url, event: 'crm_entities.deal_add' },
      ]),
    ));
  it('rejects a url that is not absolute', () =>
    rejects(client().webhooks.subscribe([{ url: '/hooks', event: 'message.add' }]), '0.url'));
});

describe('Rule: v3 webhook settings', () => {
  const switches = {
    messagesAndStatuses: true,
    contactsAndDealsCreation: true,
    channelsUpdates: false,
    templateStatus: false,
  };
  const uriOf = (length: number) => {
    const head = 'https://crm.example/';
    return head + 'a'.repeat(length - head.length);
  };
  it('passes a webhooksUri of 200 characters', () =>
    passes(client().v3.webhooks.update({ webhooksUri: uriOf(200), subscriptions: switches })));
  it('rejects a webhooksUri of 201 characters', () =>
    rejects(
      client().v3.webhooks.update({ webhooksUri: uriOf(201), subscriptions: switches }),
      'webhooksUri',
      /200/,
    ));
  it('rejects a webhooksUri that is not a URI', () =>
    rejects(
      client().v3.webhooks.update({ webhooksUri: 'crm hooks', subscriptions: switches }),
      'webhooksUri',
    ));
  it('rejects a switch that is not a boolean', () =>
    rejects(
      client().v3.webhooks.update({
        webhooksUri: uriOf(30),
        subscriptions: { ...switches, templateStatus: 'yes' as never },
      }),
      'subscriptions.templateStatus',
    ));
});

describe('Validation as a whole', () => {
  it('lists every broken rule at once, each with its path and a sentence', async () => {
    const error = (await send({
      channel_id: '',
      recipient: { chat_type: 'whatsapp', chat_id: '+1', phone: '+2' },
      text: 'a',
      template: {},
    }).catch((e: unknown) => e)) as GatewayValidationError;
    const paths = error.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(
      expect.arrayContaining([
        'channel_id',
        'recipient.chat_id',
        'recipient.phone',
        'template',
        'template.id',
      ]),
    );
    expect(error.message).toMatch(/recipient\.phone: digits only/);
    expect(seen).toHaveLength(0);
  });

  it('validateRequests: false sends the body as given', async () => {
    const body = { ...to('whatsapp'), text: 'a', attachment: { url: 'https://f.example/a' } };
    await testClient({ validateRequests: false }).messages.send(body as never);
    expect(seen).toHaveLength(1);
  });
});
