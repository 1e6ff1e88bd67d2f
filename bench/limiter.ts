// Limiter throughput: 1,500 calls against the fake gateway enforcing 500 per 5 s, the spec's
// limit: none may be answered 429, and the whole takes at most 10 % over the ideal. The
// fake runs in a process of its own (the bin's fake-gateway command), as a real service would.
// Ideal: the first 500 at once, the next 500 at 5 s, the last 500 at 10 s.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { GatewayClient, RateLimitError } from '../dist/index.js';
import { verdict } from './stats.js';

export async function limiterBench(): Promise<{ lines: string[]; ok: boolean }> {
  const cli = new URL('../dist/cli.js', import.meta.url).pathname;
  const child = spawn(process.execPath, [cli, 'fake-gateway', '--json', '--quiet'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const lines = createInterface({ input: child.stdout });
    const first = await new Promise<string>((resolve) => lines.once('line', resolve));
    const { url, token } = JSON.parse(first) as { url: string; token: string };
    // A client that has been running: code compiled and connections open (400 calls outside the
    // limit, under the fake's 500 of one window), then that window waited out. A cold process
    // spends several times the CPU per call on its first burst, and each window's late start
    // carries into the next.
    const warm = new GatewayClient({ baseUrl: url, token, maxRetries: 0, rateLimit: false });
    await Promise.all(Array.from({ length: 400 }, () => warm.channels.list()));
    await new Promise((resolve) => setTimeout(resolve, 5100));
    const client = new GatewayClient({ baseUrl: url, token, maxRetries: 0 });
    const t0 = performance.now();
    const results = await Promise.allSettled(Array.from({ length: 1500 }, () => client.channels.list()));
    const seconds = (performance.now() - t0) / 1000;
    const failures = results.filter((r) => r.status === 'rejected');
    // maxRetries 0: every 429 the fake answered is one RateLimitError here.
    const rejected = failures.filter((r) => r.reason instanceof RateLimitError).length;
    const within = seconds <= 11;
    return {
      lines: [
        `limiter: 1500 calls in ${seconds.toFixed(2)} s (ideal 10 s), ${rejected} answered 429, ${failures.length} failed`,
        verdict('limiter 429s', String(rejected), rejected === 0, '0'),
        verdict(
          'limiter total time',
          `${((seconds / 10 - 1) * 100).toFixed(1)} % over ideal`,
          within,
          '≤ 10 %',
        ),
      ],
      ok: rejected === 0 && failures.length === 0 && within,
    };
  } finally {
    child.kill();
  }
}
