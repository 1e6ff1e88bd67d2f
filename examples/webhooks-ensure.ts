// Make a receiver URL subscribed to exactly the events the CRM handles. Running it again changes
// nothing; with prune, this URL's other subscriptions are removed.
import { connect } from './setup.js';

const receiver = process.env.WEBHOOK_URL ?? 'https://crm.example/hooks/gateway';
const { client, close } = await connect();
try {
  const events = [
    'message.add',
    'message.status_update',
    'channel.qr_update',
    'channel.status_update',
  ] as const;
  const first = await client.webhooks.ensure(receiver, [...events], { prune: true });
  console.log(`subscribed: ${first.map((s) => s.event).join(', ')}`);
  const again = await client.webhooks.ensure(receiver, [...events], { prune: true });
  console.log(`second run: ${again.length} subscriptions, nothing written`);
} finally {
  await close();
}
