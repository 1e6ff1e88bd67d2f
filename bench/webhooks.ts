// Deliveries per second through createNodeMiddleware vs a bare node:http handler that only
// reads and JSON.parses the body, same load (concurrency 50, unique keys), in one run. Deliveries
// go to /hooks?secret=…, as production sends them.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { messageAdd } from '../test/support/deliveries.js';
import { median, pairedRounds, verdict } from './stats.js';

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

export async function load(port: number, bodies: string[], concurrency: number): Promise<number> {
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

/**
 * Rounds of both servers. A single round's ratio spreads far wider than the margin the verdict
 * judges on a small machine whose speed drifts; the median of 21 rounds holds still from one run
 * to the next, where that of 11 did not (the measured spread is in bench/README.md).
 */
const ROUNDS = 21;
/** The floor: the handler with a secret keeps at least this share of a bare server's deliveries per second. */
const FLOOR = 0.9;

export async function webhooksBench(): Promise<{ lines: string[]; ok: boolean }> {
  const child = fork(new URL('./webhook-servers.ts', import.meta.url), {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  try {
    const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
    const ports = JSON.parse(chunk.toString()) as { bare: number; sdk: number };
    const batch = () => Array.from({ length: 15_000 }, () => messageAdd()); // about a second a round
    await load(ports.bare, batch(), 50); // warm-up
    await load(ports.sdk, batch(), 50);
    // Each round runs both servers back to back, and the verdict is the median of the rounds'
    // ratios: a pair measured seconds apart shares the machine's speed of the moment, which
    // drifts by more than the difference measured here.
    const rates: Record<'bare' | 'sdk', number[]> = { bare: [], sdk: [] };
    const cpu: Record<'bare' | 'sdk', number[]> = { bare: [], sdk: [] };
    const ratios: number[] = [];
    const cpuRatios: number[] = [];
    const cpuNow = async () => {
      child.send('cpu');
      const [usage] = (await once(child, 'message')) as [NodeJS.CpuUsage];
      return usage.user + usage.system;
    };
    const round = async (which: 'bare' | 'sdk') => {
      const bodies = batch();
      const before = await cpuNow();
      rates[which].push(await load(ports[which], bodies, 50));
      cpu[which].push(((await cpuNow()) - before) / bodies.length);
    };
    await pairedRounds(ROUNDS, round);
    for (let i = 0; i < ROUNDS; i++) {
      ratios.push((rates.sdk[i] as number) / (rates.bare[i] as number));
      cpuRatios.push((cpu.bare[i] as number) / (cpu.sdk[i] as number));
    }
    const bare = median(rates.bare);
    const sdk = median(rates.sdk);
    const ratio = median(ratios);
    const cpuRatio = median(cpuRatios);
    return {
      lines: [
        `webhooks: deliveries/s at concurrency 50 — bare node:http + JSON.parse ${bare.toFixed(0)}, createNodeMiddleware ${sdk.toFixed(0)} (medians of ${ROUNDS} rounds; ratios per round ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
        `webhooks: server CPU per delivery — bare ${median(cpu.bare).toFixed(1)} µs, createNodeMiddleware ${median(cpu.sdk).toFixed(1)} µs (bare / createNodeMiddleware per round: median ${cpuRatio.toFixed(2)}, ${Math.min(...cpuRatios).toFixed(2)}–${Math.max(...cpuRatios).toFixed(2)})`,
        verdict(
          'createNodeMiddleware (secret set) / bare',
          `${ratio.toFixed(2)}×`,
          ratio >= FLOOR,
          `≥ ${FLOOR}×`,
        ),
      ],
      ok: ratio >= FLOOR,
    };
  } finally {
    agent.destroy();
    child.kill();
  }
}
