// Limiter throughput: 1,500 calls against the stand-in enforcing 500 per 5 s (issue #2).
// Ideal: the first 500 at once, the next 500 at 5 s, the last 500 at 10 s.
import { GatewayClient } from '../src/client.js';
import { startStandIn } from '../test/stand-in/server.js';
import { verdict } from './stats.js';

export async function limiterBench(): Promise<{ lines: string[]; ok: boolean }> {
  const standIn = await startStandIn({ rateLimit: { requests: 500, intervalMs: 5000 } });
  try {
    const client = new GatewayClient({ baseUrl: standIn.url, token: standIn.token, maxRetries: 0 });
    const t0 = performance.now();
    const results = await Promise.allSettled(Array.from({ length: 1500 }, () => client.channels.list()));
    const seconds = (performance.now() - t0) / 1000;
    const failed = results.filter((r) => r.status === 'rejected').length;
    const rejected = standIn.limiter.rejected;
    const within = seconds <= 11;
    return {
      lines: [
        `limiter: 1500 calls in ${seconds.toFixed(2)} s (ideal 10 s), ${rejected} answered 429, ${failed} failed`,
        verdict('limiter 429s', String(rejected), rejected === 0, '0'),
        verdict(
          'limiter total time',
          `${((seconds / 10 - 1) * 100).toFixed(1)} % over ideal`,
          within,
          '≤ 10 %',
        ),
      ],
      ok: rejected === 0 && failed === 0 && within,
    };
  } finally {
    await standIn.close();
  }
}
