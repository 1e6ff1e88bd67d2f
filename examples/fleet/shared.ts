// The part of the fleet every process shares: one Redis, one queue, one handler definition.
// Web processes receive deliveries and put them in the queue; worker processes run the listeners.
// Needs `npm install ioredis bullmq` and a Redis (REDIS_URL, default redis://127.0.0.1:6379).
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { DeliveryTracker, WebhookHandler } from 'messaging-gateway-sdk';
import { redisDedupeStore, redisDeliveryStore } from 'messaging-gateway-sdk/redis';
import { isInbound } from 'messaging-gateway-sdk/webhooks';

export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
// BullMQ wants maxRetriesPerRequest: null on the connections it blocks on.
export const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
export const queue = new Queue('webhooks', { connection: redis });

/** The handler: web processes dispatch into the queue; workers call `hooks.receive(job.data)`. */
export const hooks = new WebhookHandler({
  secret: process.env.WEBHOOK_SECRET ?? 'change-me',
  dedupe: redisDedupeStore(redis, { prefix: 'crm:hooks:' }), // a delivery is queued once, fleet-wide
  // 200 only once the delivery is safely in Redis; a failed add answers 503 and the service retries.
  dispatch: async (webhook) => {
    await queue.add('webhook', webhook, {
      attempts: 8,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: 1000,
    });
  },
});

// Statuses reach whichever instance the balancer picked; every instance's waitFor sees them.
export const deliveries = redisDeliveryStore(redis, { prefix: 'crm:delivery:', retainMs: 3_600_000 });
export const tracker = new DeliveryTracker({ store: deliveries }).attach(hooks);

// message.add carries the contact's messages and the echoes of this account's own sends: tell them
// apart before acting (answering an echo is the loop that messages a customer forever).
hooks.on('message.add', async (event) => {
  for (const message of event.data) {
    const chat = String(message.chat_id ?? '').slice(-4);
    const from = isInbound(message) ? 'inbound' : 'outbound (an echo of a send)';
    console.log(`${from} message in chat …${chat}`);
  }
});
