import { describe, expectTypeOf, it } from 'vitest';
import type {
  Channel,
  CreatedChannel,
  GatewayClient,
  SendManyResult,
  SendMessageResult,
  Subscription,
} from '../../src/index.js';

declare const client: GatewayClient;
const recipient = { chat_type: 'whatsapp', chat_id: '79001234567' } as const;

describe('types of the calls', () => {
  it('send takes exactly one of text, attachment or template', () => {
    client.messages.send({ channel_id: 'c', recipient, text: 'hi' });
    client.messages.send({ channel_id: 'c', recipient, attachment: { url: 'https://f.example/a.pdf' } });
    client.messages.send({ channel_id: 'c', recipient, template: { id: 't' } });
    // @ts-expect-error text and attachment together
    client.messages.send({
      channel_id: 'c',
      recipient,
      text: 'hi',
      attachment: { url: 'https://f.example/a' },
    });
    // @ts-expect-error none of them
    client.messages.send({ channel_id: 'c', recipient });
    // @ts-expect-error unknown chat type
    client.messages.send({ channel_id: 'c', recipient: { chat_type: 'fax', chat_id: '1' }, text: 'hi' });
  });

  it('credentials are typed by transport', () => {
    client.channels.create({ transport: 'telegram', credentials: { telegram_token: '1:a' } });
    client.channels.create({ transport: 'whatsapp', credentials: {} });
    client.channels.create({ transport: 'vk', credentials: { code: 'c', groups: [{ name: 'g', id: 1 }] } });
    // @ts-expect-error telegram without telegram_token
    client.channels.create({ transport: 'telegram', credentials: {} });
    // @ts-expect-error maxbot needs access_token, not telegram_token
    client.channels.create({ transport: 'maxbot', credentials: { telegram_token: 'x' } });
    // @ts-expect-error vk group ids are numbers
    client.channels.create({ transport: 'vk', credentials: { code: 'c', groups: [{ name: 'g', id: '1' }] } });
  });

  it('2fa and pairing take only the transports the spec allows', () => {
    client.channels.submit2fa('c', { two_factor_code: '1', transport: 'tgapi' });
    // @ts-expect-error no 2fa for maxbot
    client.channels.submit2fa('c', { two_factor_code: '1', transport: 'maxbot' });
    client.channels.requestPairingCode('c', { transport: 'whatsapp' });
    // @ts-expect-error pairing codes are for whatsapp only
    client.channels.requestPairingCode('c', { transport: 'telegram' });
  });

  it('subscriptions take the spec’s event kinds', () => {
    client.webhooks.ensure('https://crm.example/hooks', ['message.add', 'message.status_update']);
    // @ts-expect-error not an event kind
    client.webhooks.ensure('https://crm.example/hooks', ['message.added']);
  });

  it('results have the spec’s types', () => {
    expectTypeOf(client.messages.send).returns.resolves.toEqualTypeOf<SendMessageResult>();
    expectTypeOf<SendMessageResult['request_id']>().toEqualTypeOf<string>();
    expectTypeOf(client.messages.sendMany).returns.resolves.toEqualTypeOf<SendManyResult[]>();
    expectTypeOf(client.channels.list).returns.resolves.toEqualTypeOf<Channel[]>();
    expectTypeOf(client.channels.get).returns.resolves.toEqualTypeOf<Channel>();
    expectTypeOf(client.channels.create).returns.resolves.toEqualTypeOf<CreatedChannel[]>();
    expectTypeOf(client.channels.delete).returns.resolves.toBeVoid();
    expectTypeOf(client.webhooks.list).returns.resolves.toEqualTypeOf<Subscription[]>();
    expectTypeOf<Channel['channel_id']>().toEqualTypeOf<string>();
    // Enumerations keep the spec's values for completion, and admit values the spec does not list.
    expectTypeOf<'active'>().toExtend<NonNullable<Channel['status']>>();
    expectTypeOf<'some_new_status'>().toExtend<NonNullable<Channel['status']>>();
    expectTypeOf(client.v3.webhooks.get).returns.resolves.toHaveProperty('subscriptions');
    expectTypeOf(client.v3.webhooks.update).returns.resolves.toBeVoid();
  });
});
