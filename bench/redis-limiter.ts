// A fleet through one account (issue #13): 3 processes × 500 calls at 500 per 5 s through one
// redisRateLimiter, against the fake gateway (a process of its own, the bin's fake-gateway command)
// enforcing the same limit. Ideal:
// 500 at once, 500 at 5 s, 500 at 10 s. Then the per-call cost of the Redis limiter (acquire +
// release, limit far away) beside the in-memory one, measured in this process.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import { RateLimiter } from '../src/core/rate-limiter.js';
import { redisRateLimiter } from '../src/redis.js';
import { runSenders } from '../test/redis/fleet-processes.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { median, timeEach, verdict } from './stats.js';

async function overhead(url: string): Promise<{ memory: number; redis: number }> {
  const redis = new Redis(url);
  try {
    const memory = new RateLimiter({ requests: 1_000_000, intervalMs: 5000 });
    const shared = redisRateLimiter(redis, { key: 'bench-overhead', requests: 1_000_000, intervalMs: 5000 });
    const once = (limiter: { acquire(): Promise<() => void> }) => async () => (await limiter.acquire())();
    await timeEach(200, once(shared)); // warm up: script loaded, connection hot
    return {
      memory: median(await timeEach(2000, once(memory))),
      redis: median(await timeEach(2000, once(shared))),
    };
  } finally {
    redis.disconnect();
  }
}

export async function redisLimiterBench(): Promise<{ lines: string[]; ok: boolean }> {
  const server = await startRedisServer();
  const cli = new URL('../src/cli/main.ts', import.meta.url).pathname;
  const gateway = spawn(process.execPath, ['--import', 'tsx', cli, 'fake-gateway', '--json', '--quiet'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const first = await new Promise<string>((resolve) =>
      createInterface({ input: gateway.stdout }).once('line', resolve),
    );
    const before = JSON.parse(first) as { url: string; token: string };
    const { reports, ms } = await runSenders({
      mode: 'redis',
      processes: 3,
      calls: 500,
      limit: '500/5000',
      kinds: ['ioredis', 'node-redis'],
      redisUrl: server.url,
      baseUrl: before.url,
      token: before.token,
    });
    // maxRetries 0: every 429 the fake answered is one rejected call of a sender.
    const rejected = reports.reduce((sum, r) => sum + r.rejected, 0);
    const failed = reports.reduce((sum, r) => sum + r.failed, 0);
    const seconds = ms / 1000;
    const cost = await overhead(server.url);
    return {
      lines: [
        `redis limiter: 3 processes × 500 calls in ${seconds.toFixed(2)} s (ideal 10 s), ${rejected} answered 429, ${failed} failed`,
        verdict('redis limiter 429s', String(rejected), rejected === 0, '0'),
        verdict('redis limiter total time', `${seconds.toFixed(2)} s`, seconds <= 11, '≤ 11 s'),
        `redis limiter per call (acquire + release, median of 2000): ${cost.redis.toFixed(0)} µs; in-memory: ${cost.memory.toFixed(1)} µs`,
      ],
      ok: rejected === 0 && failed === 0 && seconds <= 11,
    };
  } finally {
    gateway.kill();
    await server.stop();
  }
}
