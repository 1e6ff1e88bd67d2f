// A sending process: every process sending through the account shares one rate limit, and waits
// for the outcome of its sends whichever web process receives the status.
// `GATEWAY_BASE_URL=… GATEWAY_TOKEN=… tsx examples/fleet/sender.ts`
import { GatewayClient, MessageFailedError } from 'messaging-gateway-sdk';
import { redisRateLimiter } from 'messaging-gateway-sdk/redis';
import { deliveries, redis, tracker } from './shared.js';

const client = new GatewayClient({
  rateLimit: redisRateLimiter(redis, { key: process.env.GATEWAY_ACCOUNT ?? 'account' }), // 500 / 5 s, fleet-wide
});
const { request_id } = await client.messages.send({
  channel_id: process.env.CHANNEL_ID ?? 'channel-id',
  recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
  text: 'Your order has shipped',
});
try {
  const update = await tracker.waitFor(request_id, { until: 'delivered', timeoutMs: 120_000 });
  console.log('reached', update.status, 'as message', update.message_id);
} catch (error) {
  if (error instanceof MessageFailedError) console.log('failed:', error.reason);
  else throw error;
} finally {
  await deliveries.close();
  redis.disconnect();
}
