// Send to many recipients with a live progress line. sendMany keeps to the rate limit, never
// rejects for one bad item, and returns one result per item in order.
import { connect } from './setup.js';

const { client, channelId, close } = await connect();
try {
  const phones = Array.from({ length: 25 }, (_, i) => `7900123${String(i).padStart(4, '0')}`);
  phones[7] = '+7 900 bad'; // one invalid number: rejected before sending, the rest go on
  const results = await client.messages.sendMany(
    phones.map((chat_id) => ({
      channel_id: channelId,
      recipient: { chat_type: 'whatsapp', chat_id },
      text: 'Sale starts today!',
    })),
    {
      concurrency: 5,
      onProgress: ({ done, failed, total }) =>
        process.stdout.write(`\rsent ${done}/${total}, failed ${failed}`),
    },
  );
  process.stdout.write('\n');
  results.forEach((r, i) => {
    if (!r.ok) console.log(`  item ${i} (…${phones[i]?.slice(-4)}): ${r.error.message}`);
  });
} finally {
  await close();
}
