// A fleet through one account: 3 processes × 500 calls at 500 per 5 s through one
// redisRateLimiter, against the fake gateway (a process of its own, the bin's fake-gateway command)
// enforcing the same limit. Ideal: 500 at once, 500 at 5 s, 500 at 10 s. Then the per-call cost of
// the Redis limiter (acquire + release, limit far away) beside the in-memory one, measured in this
// process. All of it on a single redis-server and on a three-master Redis Cluster.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { RateLimiter } from '../src/core/rate-limiter.js';
import { redisRateLimiter } from '../src/redis.js';
import { runSenders } from '../test/redis/fleet-processes.js';
import { connectClient } from '../test/support/redis-clients.js';
import { startRedisCluster } from '../test/support/redis-cluster.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { median, timeEach, verdict } from './stats.js';

// `url`: one server, or a cluster's nodes separated by commas.
async function overhead(url: string): Promise<{ memory: number; redis: number }> {
  const { redis, close } = await connectClient('ioredis', url);
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
    await close();
  }
}

async function fleet(
  where: string,
  redisUrl: string,
  gateway: { url: string; token: string },
): Promise<{ lines: string[]; ok: boolean }> {
  const { reports, ms } = await runSenders({
    mode: 'redis',
    processes: 3,
    calls: 500,
    limit: '500/5000',
    kinds: ['ioredis', 'node-redis'],
    redisUrl,
    baseUrl: gateway.url,
    token: gateway.token,
    // A fleet that has been running: each process compiled and connected (160 calls each, under
    // the gateway's 500 of one window, waited out before the run).
    warmUp: 160,
  });
  // maxRetries 0: every 429 the fake answered is one rejected call of a sender.
  const rejected = reports.reduce((sum, r) => sum + r.rejected, 0);
  const failed = reports.reduce((sum, r) => sum + r.failed, 0);
  const seconds = ms / 1000;
  const cost = await overhead(redisUrl);
  return {
    lines: [
      `redis limiter (${where}): 3 processes × 500 calls in ${seconds.toFixed(2)} s (ideal 10 s), ${rejected} answered 429, ${failed} failed`,
      verdict(`redis limiter (${where}) 429s`, String(rejected), rejected === 0, '0'),
      verdict(`redis limiter (${where}) total time`, `${seconds.toFixed(2)} s`, seconds <= 11, '≤ 11 s'),
      `redis limiter (${where}) per call (acquire + release, median of 2000): ${cost.redis.toFixed(0)} µs; in-memory: ${cost.memory.toFixed(1)} µs`,
    ],
    ok: rejected === 0 && failed === 0 && seconds <= 11,
  };
}

export async function redisLimiterBench(): Promise<{ lines: string[]; ok: boolean }> {
  const server = await startRedisServer();
  const cluster = await startRedisCluster();
  const cli = new URL('../src/cli/main.ts', import.meta.url).pathname;
  const gateway = spawn(process.execPath, ['--import', 'tsx', cli, 'fake-gateway', '--json', '--quiet'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const first = await new Promise<string>((resolve) =>
      createInterface({ input: gateway.stdout }).once('line', resolve),
    );
    const address = JSON.parse(first) as { url: string; token: string };
    const single = await fleet('single server', server.url, address);
    await new Promise((resolve) => setTimeout(resolve, 5100)); // a fresh window of the fake
    const onCluster = await fleet('3-master cluster', cluster.urls.join(','), address);
    return { lines: [...single.lines, ...onCluster.lines], ok: single.ok && onCluster.ok };
  } finally {
    gateway.kill();
    await Promise.all([server.stop(), cluster.stop()]);
  }
}
