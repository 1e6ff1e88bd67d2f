// Send a file. Text and a file go in separate requests (spec: send rule 2).
import { connect } from './setup.js';

const { client, channelId, close } = await connect();
try {
  const { request_id } = await client.messages.send({
    channel_id: channelId,
    recipient: { chat_type: 'telegram', username: 'alice_example' },
    attachment: {
      url: 'https://files.example/invoice-1042.pdf',
      name: 'invoice-1042.pdf',
      mimetype: 'application/pdf',
    },
  });
  console.log(`file accepted: request_id=${request_id}`);
} finally {
  await close();
}
