// A worker process: runs the listeners of each queued delivery. A listener that throws fails the
// job, and BullMQ tries it again (attempts and backoff are set where the job is added); a worker
// that dies mid-job leaves it to another once its lock expires. `tsx examples/fleet/worker.ts`.
import { Worker } from 'bullmq';
import { hooks, redisUrl } from './shared.js';

const worker = new Worker('webhooks', (job) => hooks.receive(job.data), {
  connection: { url: redisUrl, maxRetriesPerRequest: null },
  concurrency: 20,
});
worker.on('failed', (job, error) =>
  console.warn(`delivery ${job?.id} failed (attempt ${job?.attemptsMade}):`, error.message),
);
process.on('SIGTERM', () => void worker.close().then(() => process.exit(0)));
