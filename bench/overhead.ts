// Overhead of a minimal call through GatewayClient vs bare ky vs raw fetch, against the same
// loopback server (in a child process), in one run (issue #2). Rounds interleave the three so
// drift hits all alike. The client keeps its rate limiter in the path, sized so it never binds:
// its bookkeeping is measured, waiting for the service's limit is not overhead.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import ky from 'ky';
import { GatewayClient } from '../src/client.js';
import { median, timeEach, verdict } from './stats.js';

export async function overheadBench(): Promise<{ lines: string[]; ok: boolean }> {
  const child = fork(new URL('./loopback-server.mjs', import.meta.url), {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  try {
    const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
    const base = `http://127.0.0.1:${chunk.toString().trim()}`;
    const headers = { authorization: 'Bearer bench-token' };
    const client = new GatewayClient({
      baseUrl: base,
      token: 'bench-token',
      rateLimit: { requests: 100_000, intervalMs: 1000 },
    });
    const bareKy = ky.create({ prefix: base, headers });
    const variants: Record<string, () => Promise<unknown>> = {
      'raw fetch': async () => (await fetch(`${base}/v2/channels`, { headers })).json(),
      'bare ky': () => bareKy.get('v2/channels').json(),
      GatewayClient: () => client.channels.list(),
    };
    const samples: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
    for (const fn of Object.values(variants)) await timeEach(500, fn); // warm-up
    for (let round = 0; round < 15; round++) {
      for (const [name, fn] of Object.entries(variants)) samples[name]?.push(...(await timeEach(200, fn)));
    }
    const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)])) as Record<
      string,
      number
    >;
    const ratio = (m.GatewayClient as number) / (m['bare ky'] as number);
    const fmt = (name: string) => `${name} ${m[name]?.toFixed(1)}`;
    return {
      lines: [
        `overhead: median µs per call — ${fmt('raw fetch')}, ${fmt('bare ky')}, ${fmt('GatewayClient')}`,
        verdict('GatewayClient / bare ky', `${ratio.toFixed(3)}×`, ratio <= 1.1, '≤ 1.10×'),
      ],
      ok: ratio <= 1.1,
    };
  } finally {
    child.kill();
  }
}
