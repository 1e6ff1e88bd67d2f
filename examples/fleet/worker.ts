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

// On SIGTERM, close() lets the running jobs finish. It needs Redis to do so: with Redis gone it
// would wait for it forever (the connection retries without end), so give it SHUTDOWN_TIMEOUT_MS
// (default 10 s), then exit 1. A job left unfinished goes to another worker once its lock expires.
const shutdownTimeoutMs = Number(process.env.SHUTDOWN_TIMEOUT_MS ?? 10_000);
process.once('SIGTERM', async () => {
  const timedOut = new Promise<'timed out'>((resolve) => setTimeout(resolve, shutdownTimeoutMs, 'timed out'));
  const outcome = await Promise.race([worker.close().then(() => 'closed' as const), timedOut]);
  if (outcome === 'timed out')
    console.warn(`worker: Redis did not answer within ${shutdownTimeoutMs} ms; exiting`);
  process.exit(outcome === 'closed' ? 0 : 1);
});
