// examples/fleet/ run as a reader runs it: a web process and a worker process on a real
// redis-server. The worker labels the echo of a send as outbound, and its SIGTERM ends it even once
// Redis is gone.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { buildWebhook } from '../../src/testing.js';
import { skipRedis } from '../support/redis-clients.js';
import { startRedisServer } from '../support/redis-server.js';
import { freePort } from '../support/servers.js';

const SECRET = 'fleet-secret';

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

const started = new Set<Started>();
afterEach(() => {
  for (const { child } of started)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  started.clear();
});

/** `node --import tsx examples/fleet/<file>` with `env`; its standard output and error together. */
function run(file: string, env: Record<string, string>): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', `examples/fleet/${file}`], {
    env: { ...process.env, WEBHOOK_SECRET: SECRET, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const process_ = { child, output: () => output, exited };
  started.add(process_);
  return process_;
}

describe.skipIf(skipRedis)('examples/fleet', () => {
  it('the worker labels an echo of a send as outbound; on SIGTERM with Redis gone it still exits', {
    timeout: 120_000,
  }, async () => {
    const redis = await startRedisServer();
    try {
      const port = await freePort();
      const env = { REDIS_URL: redis.url, PORT: String(port), SHUTDOWN_TIMEOUT_MS: '1000' };
      const web = run('web.ts', env);
      const worker = run('worker.ts', env);
      await expect.poll(web.output, { timeout: 60_000 }).toContain('receiving webhooks');
      const delivery = buildWebhook('message.add', {
        data: [
          { direction: 'inbound', chat_id: '79001110001', text: 'Where is my order?' },
          { direction: 'outbound', chat_id: '79001110002', text: 'Your order has shipped' },
        ],
      });
      const answer = await fetch(`http://127.0.0.1:${port}/hooks?secret=${SECRET}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(delivery),
      });
      expect(answer.status).toBe(200);
      await expect.poll(worker.output, { timeout: 60_000 }).toContain('message in chat …0002');
      expect(worker.output()).toContain('inbound message in chat …0001');
      expect(worker.output()).toContain('outbound (an echo of a send) message in chat …0002');

      // Redis gone, and the worker has seen it (its reconnect refused), then SIGTERM: close()
      // cannot finish without Redis, and the example's bound ends the process.
      await redis.stop('SIGKILL');
      await expect.poll(worker.output, { timeout: 60_000 }).toContain('ECONNREFUSED');
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(1);
      expect(worker.output()).toContain('Redis did not answer within 1000 ms; exiting');
      web.child.kill('SIGTERM');
      await web.exited;
    } finally {
      await redis.stop();
    }
  });
});
