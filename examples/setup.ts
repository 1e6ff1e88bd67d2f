// Shared by the examples: a real gateway when GATEWAY_BASE_URL and GATEWAY_TOKEN are set,
// otherwise the local stand-in gateway on 127.0.0.1 (development only, not in the package).
import { GatewayClient } from 'messaging-gateway-sdk';
import { startStandIn } from '../test/stand-in/server.js';

export interface Session {
  client: GatewayClient;
  /** A channel to send through: GATEWAY_CHANNEL_ID, or one created on the stand-in. */
  channelId: string;
  /** True when talking to the local stand-in. */
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
  const standIn = await startStandIn();
  const client = new GatewayClient({ baseUrl: standIn.url, token: standIn.token, apiKey: standIn.apiKey });
  const [channel] = await client.channels.create({ transport: 'whatsapp', credentials: {} });
  console.log(`(no GATEWAY_BASE_URL/GATEWAY_TOKEN set: using the local stand-in at ${standIn.url})`);
  return { client, channelId: channel?.channel_id ?? '', local: true, close: () => standIn.close() };
}
