// A MAX bot message with a keyboard: rows of buttons (a two-dimensional array).
import { connect } from './setup.js';

const { client, channelId, close } = await connect();
try {
  const { request_id } = await client.messages.send({
    channel_id: channelId,
    recipient: { chat_type: 'max', chat_id: '987654321' },
    text: 'Confirm your appointment for Monday 10:00?',
    keyboard: {
      buttons: [
        [
          { type: 'callback', text: 'Confirm', payload: 'appt:confirm', intent: 'positive' },
          { type: 'callback', text: 'Cancel', payload: 'appt:cancel', intent: 'negative' },
        ],
        [{ type: 'link', text: 'Reschedule online', url: 'https://clinic.example/booking' }],
      ],
    },
  });
  console.log(`MAX keyboard accepted: request_id=${request_id}`);
} finally {
  await close();
}
