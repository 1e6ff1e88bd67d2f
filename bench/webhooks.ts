// Deliveries per second through createNodeMiddleware vs a bare node:http handler that only
// reads and JSON.parses the body, same load (concurrency 50, unique keys), in one run. Deliveries
// go to /hooks?secret=…, as production sends them.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { messageAdd } from '../test/support/deliveries.js';
import { median, verdict } from './stats.js';

// node:http with keep-alive is a lighter client than fetch, so the servers, not the client, set
// the pace.
const agent = new Agent({ keepAlive: true, maxSockets: 50 });

function post(port: number, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/hooks?secret=bench-secret-of-some-length',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function load(port: number, bodies: string[], concurrency: number): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < bodies.length) {
      const status = await post(port, bodies[next++] as string);
      if (status !== 200) throw new Error(`status ${status}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return bodies.length / ((performance.now() - t0) / 1000);
}

export async function webhooksBench(): Promise<{ lines: string[]; ok: boolean }> {
  const child = fork(new URL('./webhook-servers.ts', import.meta.url), {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  try {
    const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
    const ports = JSON.parse(chunk.toString()) as { bare: number; sdk: number };
    const batch = () => Array.from({ length: 3000 }, () => messageAdd());
    await load(ports.bare, batch(), 50); // warm-up
    await load(ports.sdk, batch(), 50);
    const rates: Record<'bare' | 'sdk', number[]> = { bare: [], sdk: [] };
    for (let round = 0; round < 9; round++) {
      rates.bare.push(await load(ports.bare, batch(), 50));
      rates.sdk.push(await load(ports.sdk, batch(), 50));
    }
    const bare = median(rates.bare);
    const sdk = median(rates.sdk);
    const ratio = sdk / bare;
    return {
      lines: [
        `webhooks: deliveries/s at concurrency 50 — bare node:http + JSON.parse ${bare.toFixed(0)}, createNodeMiddleware ${sdk.toFixed(0)}`,
        verdict('createNodeMiddleware (secret set) / bare', `${ratio.toFixed(2)}×`, ratio >= 0.95, '≥ 0.95×'),
      ],
      ok: ratio >= 0.95,
    };
  } finally {
    agent.destroy();
    child.kill();
  }
}
