// A durable queue with BullMQ, as the README and examples/fleet/ show it, on a real redis-server.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { Queue, QueueEvents, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisDedupeStore } from '../../src/redis.js';
import type { Webhook } from '../../src/webhooks/decode/parse.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { messageAdd, post } from '../support/deliveries.js';
import { skipRedis } from '../support/redis-clients.js';
import { useRedisServer } from '../support/redis-server.js';

describe.skipIf(skipRedis)('a durable queue: BullMQ between the handler and its listeners', () => {
  const server = useRedisServer();
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(server.port, '127.0.0.1', { maxRetriesPerRequest: null });
  });
  afterAll(() => redis?.disconnect());
  const connection = () => ({ host: '127.0.0.1', port: server.port, maxRetriesPerRequest: null });

  /** The web side: answers 200 once the delivery is in the queue. */
  function web(queue: Queue) {
    return new WebhookHandler({
      secret: 's',
      dedupe: redisDedupeStore(redis, { prefix: `${queue.name}:dedupe:` }),
      dispatch: async (webhook: Webhook) => {
        await queue.add('webhook', webhook, { attempts: 5, backoff: { type: 'fixed', delay: 20 } });
      },
    });
  }

  it('a listener that fails once is retried by the queue', async () => {
    const queue = new Queue('retry', { connection: connection() });
    const events = new QueueEvents('retry', { connection: connection() });
    const hooks = web(queue);
    let calls = 0;
    hooks.on('message.add', () => {
      calls++;
      if (calls === 1) throw new Error('CRM briefly down');
    });
    const worker = new Worker('retry', (job) => hooks.receive(job.data), { connection: connection() });
    try {
      await events.waitUntilReady();
      const answer = await hooks.handle(post(messageAdd('retry-1'), '/hooks?secret=s'));
      expect(answer.status).toBe(200);
      const [{ jobId }] = (await once(events, 'completed')) as [{ jobId: string }];
      expect(calls).toBe(2);
      expect((await queue.getJob(jobId))?.attemptsMade).toBe(2);
    } finally {
      await worker.close();
      await events.close();
      await queue.close();
    }
  });

  it('100 deliveries, each sent twice: each processed exactly once', { timeout: 120_000 }, async () => {
    const queue = new Queue('once', { connection: connection() });
    const hooks = web(queue);
    const seen = new Map<string, number>();
    hooks.on('message.add', (event) => {
      const key = event.meta.idempotency_key as string;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    });
    const worker = new Worker('once', (job) => hooks.receive(job.data), {
      connection: connection(),
      concurrency: 10,
    });
    try {
      const bodies = Array.from({ length: 100 }, (_, i) => messageAdd(`once-${i}`));
      const answers = await Promise.all(
        [...bodies, ...bodies].map((b) => hooks.handle(post(b, '/hooks?secret=s'))),
      );
      for (const answer of answers) expect([200, 409]).toContain(answer.status);
      await expect.poll(() => seen.size, { timeout: 20_000 }).toBe(100);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect([...seen.values()].every((count) => count === 1)).toBe(true);
      expect(await queue.getJobCounts('completed')).toEqual({ completed: 100 });
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it('the worker killed mid-job, another started: 0 deliveries lost', { timeout: 120_000 }, async () => {
    const queue = new Queue('crash', { connection: connection() });
    const hooks = web(queue);
    const keys = Array.from({ length: 20 }, (_, i) => `crash-${i}`);
    for (const key of keys)
      expect((await hooks.handle(post(messageAdd(key), '/hooks?secret=s'))).status).toBe(200);
    const start = () =>
      fork(new URL('./fixtures/queue-worker.ts', import.meta.url), [String(server.port), 'crash'], {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
    const first = start();
    await once(first, 'message'); // it started a job
    first.kill('SIGKILL');
    await once(first, 'exit');
    const second = start();
    try {
      await expect
        .poll(async () => (await redis.smembers('crash:processed')).length, {
          timeout: 45_000,
          interval: 200,
        })
        .toBe(20);
      expect((await redis.smembers('crash:processed')).sort()).toEqual([...keys].sort());
    } finally {
      second.kill();
      await queue.close();
    }
  });
});
