// A Telegram bot message with an inline keyboard: callback_data is 1 to 64 bytes.
import { connect } from './setup.js';

const { client, channelId, close } = await connect();
try {
  const { request_id } = await client.messages.send({
    channel_id: channelId,
    recipient: { chat_type: 'telegram', chat_id: '123456789' },
    text: 'Rate your delivery',
    keyboard: {
      reply_markup: 'inline',
      buttons: [
        { text: '👍 Good', callback_data: 'rate:good' },
        { text: '👎 Bad', callback_data: 'rate:bad' },
        { text: 'Track parcel', url: 'https://shop.example/track/1042' },
      ],
    },
  });
  console.log(`keyboard message accepted: request_id=${request_id}`);
} finally {
  await close();
}
