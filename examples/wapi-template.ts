// Send an approved WhatsApp Business template with variable values and button payloads.
import { connect } from './setup.js';

const { client, channelId, close } = await connect();
try {
  const { request_id } = await client.messages.send({
    channel_id: channelId,
    recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
    template: {
      id: '6f1c2a9e-3b7d-4c1e-9a51-2f8d0e4b7c13',
      values: ['Alice', '#1042'],
      buttons: [{ payload: 'track-1042' }, { payload: 'support' }],
    },
  });
  console.log(`template accepted: request_id=${request_id}`);
} finally {
  await close();
}
