// Limiter throughput: 1,500 calls against the stand-in enforcing 500 per 5 s (issue #2). The
// stand-in runs in a process of its own, as a real service would. Ideal: the first 500 at once,
// the next 500 at 5 s, the last 500 at 10 s.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { GatewayClient } from '../src/client.js';
import { verdict } from './stats.js';

type Report = { url: string; token: string; rejected: number };

export async function limiterBench(): Promise<{ lines: string[]; ok: boolean }> {
  const child = fork(new URL('../test/stand-in/main.ts', import.meta.url), {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, STAND_IN_PORT: '0', STAND_IN_RATE_LIMIT: '500/5000' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ask = async (): Promise<Report> => {
    child.send('report');
    const [report] = (await once(child, 'message')) as [Report];
    return report;
  };
  try {
    const [before] = (await once(child, 'message')) as [Report]; // sent once it listens
    const client = new GatewayClient({ baseUrl: before.url, token: before.token, maxRetries: 0 });
    const t0 = performance.now();
    const results = await Promise.allSettled(Array.from({ length: 1500 }, () => client.channels.list()));
    const seconds = (performance.now() - t0) / 1000;
    const failed = results.filter((r) => r.status === 'rejected').length;
    const rejected = (await ask()).rejected - before.rejected;
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
    child.kill();
  }
}
