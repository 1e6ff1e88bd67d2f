// Send a text message to a WhatsApp number. The answer only means "accepted": the outcome
// arrives later as a message.status_update webhook: examples/demo.ts follows each send to its
// status with DeliveryTracker (`npm run demo`).
import { connect } from './setup.js';

const { client, channelId, close } = await connect();
try {
  const { request_id, chat_id } = await client.messages.send({
    channel_id: channelId,
    recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
    text: 'Your order #1042 has shipped',
  });
  console.log(`accepted: request_id=${request_id} chat …${(chat_id ?? '').slice(-4)}`); // no full phone in logs
} finally {
  await close();
}
