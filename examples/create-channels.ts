// Create a channel of each kind. credentials is typed by transport: the compiler knows that a
// telegram bot needs telegram_token and a whatsapp number needs nothing (it sends a QR instead).
import type { CreateChannelParams } from 'messaging-gateway-sdk';
import { connect } from './setup.js';

const kinds: CreateChannelParams[] = [
  { transport: 'whatsapp', credentials: {} }, // QR arrives in channel.qr_update
  { transport: 'tgapi', credentials: {} },
  { transport: 'viber', credentials: {} },
  { transport: 'max', credentials: {} },
  { transport: 'wapi', credentials: {} }, // answer carries a url the customer opens
  { transport: 'telegram', credentials: { telegram_token: '123456:ABC-example-bot-token' } },
  { transport: 'maxbot', credentials: { access_token: 'example-max-bot-token' } },
  { transport: 'avito', credentials: { code: 'example-authorization-code' } },
  {
    transport: 'instAPI',
    credentials: {
      username: 'shop.example',
      page_id: '1029384756',
      inst_id: '17841400000000000',
      user_token: 'example-user-token',
    },
  },
];

const { client, close, local } = await connect();
try {
  if (!local) console.log('Against a real gateway this creates real channels: run it on a test account.');
  for (const params of kinds) {
    const [created] = await client.channels.create(params);
    console.log(
      `${params.transport.padEnd(9)} → ${created?.channel_id}${created?.url ? `  open: ${created.url}` : ''}`,
    );
  }
  console.log(`channels now: ${(await client.channels.list()).length}`);
} finally {
  await close();
}
