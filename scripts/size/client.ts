// What an edge user ships to send: a script that only uses GatewayClient.
import { GatewayClient } from 'messaging-gateway-sdk';

const client = new GatewayClient({ token: 'a-token-from-the-environment', baseUrl: 'http://127.0.0.1:1' });
export default {
  fetch: async () =>
    Response.json(
      await client.messages.send({
        channel_id: 'channel',
        recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
        text: 'Hello',
      }),
    ),
};
