// Overhead of a send (POST /v2/messages, validated) through GatewayClient vs bare ky vs raw fetch, against the same
// loopback server (in a child process), in one run (issue #2). Rounds interleave the three so
// drift hits all alike. The client keeps its rate limiter in the path, sized so it never binds:
// its bookkeeping is measured, waiting for the service's limit is not overhead.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import ky from 'ky';
import { GatewayClient } from '../dist/index.js';
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
    const message = {
      channel_id: 'c1',
      recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
      text: 'Hello from the bench',
    } as const;
    const post = { method: 'POST', headers: { ...headers, 'content-type': 'application/json' } };
    const variants: Record<string, () => Promise<unknown>> = {
      'raw fetch': async () =>
        (await fetch(`${base}/v2/messages`, { ...post, body: JSON.stringify(message) })).json(),
      'bare ky': () => bareKy.post('v2/messages', { json: message }).json(),
      GatewayClient: () => client.messages.send(message),
    };
    const samples: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
    const kyRatios: number[] = [];
    const fetchRatios: number[] = [];
    for (const fn of Object.values(variants)) await timeEach(500, fn); // warm-up
    // Rounds interleave the three; each round's medians give one ratio, and the figure is the
    // median of those ratios, so a slow patch of the machine weighs on one round only.
    for (let round = 0; round < 15; round++) {
      const m: Record<string, number> = {};
      for (const [name, fn] of Object.entries(variants)) {
        const times = await timeEach(200, fn);
        samples[name]?.push(...times);
        m[name] = median(times);
      }
      kyRatios.push((m.GatewayClient as number) / (m['bare ky'] as number));
      fetchRatios.push((m.GatewayClient as number) / (m['raw fetch'] as number));
    }
    const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)])) as Record<
      string,
      number
    >;
    const ratio = median(kyRatios);
    const fmt = (name: string) => `${name} ${m[name]?.toFixed(1)}`;
    return {
      lines: [
        `overhead: messages.send, median µs per call — ${fmt('raw fetch')}, ${fmt('bare ky')}, ${fmt('GatewayClient')}`,
        verdict('GatewayClient / bare ky', `${ratio.toFixed(3)}×`, ratio <= 1.05, '≤ 1.05×') +
          `; sdk/fetch ${median(fetchRatios).toFixed(3)}×`,
      ],
      ok: ratio <= 1.05,
    };
  } finally {
    child.kill();
  }
}
