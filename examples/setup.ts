// Shared by the examples: a real gateway when GATEWAY_BASE_URL and GATEWAY_TOKEN are set,
// otherwise the package's fake gateway on 127.0.0.1 (messaging-gateway-sdk/testing).
import { GatewayClient } from 'messaging-gateway-sdk';
import { createFakeGateway } from 'messaging-gateway-sdk/testing';

export interface Session {
  client: GatewayClient;
  /** A channel to send through: GATEWAY_CHANNEL_ID, or one created on the fake gateway. */
  channelId: string;
  /** True when talking to the local fake gateway. */
  local: boolean;
  close(): Promise<void>;
}

export async function connect(): Promise<Session> {
  const { GATEWAY_BASE_URL, GATEWAY_TOKEN, GATEWAY_CHANNEL_ID } = process.env;
  if (GATEWAY_BASE_URL && GATEWAY_TOKEN) {
    return {
      client: new GatewayClient(),
      channelId: GATEWAY_CHANNEL_ID ?? '',
      local: false,
      close: async () => {},
    };
  }
  const gateway = await createFakeGateway();
  const client = new GatewayClient({ baseUrl: gateway.url, token: gateway.token, apiKey: gateway.apiKey });
  const [channel] = await client.channels.create({ transport: 'whatsapp', credentials: {} });
  await gateway.drain(); // the fake scans its QR by itself: the channel is active, ready to send
  console.log(`(no GATEWAY_BASE_URL/GATEWAY_TOKEN set: using the local fake gateway at ${gateway.url})`);
  return { client, channelId: channel?.channel_id ?? '', local: true, close: () => gateway.close() };
}
