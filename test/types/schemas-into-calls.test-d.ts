import { describe, it } from 'vitest';
import type { GatewayClient } from '../../src/index.js';
import {
  createChannelParams,
  deleteChannelParams,
  editMessageParams,
  messagesDumpParams,
  pairingCodeParams,
  reinitChannelParams,
  sendMessageParams,
  submit2faParams,
  subscribeParams,
  unsubscribeParams,
  updateSubscriptionsParams,
  v3WebhookSettingsParams,
} from '../../src/schemas.js';

declare const client: GatewayClient;
declare const input: unknown;

// What a user validates with messaging-gateway-sdk/schemas goes into the call without a cast.
describe('the output of every request schema is what its call takes', () => {
  it('messages', () => {
    client.messages.send(sendMessageParams.parse(input));
    client.messages.sendMany([sendMessageParams.parse(input)]);
    client.messages.edit('m', editMessageParams.parse(input));
    client.messages.dump(messagesDumpParams.parse(input));
  });
  it('channels', () => {
    client.channels.create(createChannelParams.parse(input));
    client.channels.submit2fa('c', submit2faParams.parse(input));
    client.channels.reinit('c', reinitChannelParams.parse(input));
    client.channels.requestPairingCode('c', pairingCodeParams.parse(input));
    client.channels.delete('c', deleteChannelParams.parse(input));
  });
  it('webhooks', () => {
    client.webhooks.subscribe(subscribeParams.parse(input));
    client.webhooks.update(updateSubscriptionsParams.parse(input));
    client.webhooks.unsubscribe(unsubscribeParams.parse(input));
    client.v3.webhooks.update(v3WebhookSettingsParams.parse(input));
  });
});
