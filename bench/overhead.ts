// Overhead of a send (POST /v2/messages, validated) through GatewayClient against bare ky and
// raw fetch, on one loopback server, measured twice: with the server in this process (its work
// shares the client's event loop, as in a test suite) and with it in a child process (the
// client's own work alone). Rounds interleave the three so drift hits all alike. The client
// keeps its rate limiter in the path, sized so it never binds: its bookkeeping is measured,
// waiting for the service's limit is not overhead.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import ky from 'ky';
import { GatewayClient } from '../dist/index.js';
// @ts-expect-error: a plain .mjs script, without types
import { listenLoopback } from './loopback-server.mjs';
import { median, timeEach, verdict } from './stats.js';

/** GatewayClient may take at most this much longer than bare ky for one send. */
const TARGET = 1.15;

const TOKEN = 'bench-token';
const MESSAGE = {
  channel_id: 'c1',
  recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
  text: 'Hello from the bench',
} as const;

/** The three ways of sending one message to the server at `base`. */
function variants(base: string): Record<string, () => Promise<unknown>> {
  const headers = { authorization: `Bearer ${TOKEN}` };
  const client = new GatewayClient({
    baseUrl: base,
    token: TOKEN,
    rateLimit: { requests: 100_000, intervalMs: 1000 },
  });
  const bareKy = ky.create({ prefix: base, headers });
  const post = { method: 'POST', headers: { ...headers, 'content-type': 'application/json' } };
  return {
    'raw fetch': async () =>
      (await fetch(`${base}/v2/messages`, { ...post, body: JSON.stringify(MESSAGE) })).json(),
    'bare ky': () => bareKy.post('v2/messages', { json: MESSAGE }).json(),
    GatewayClient: () => client.messages.send(MESSAGE),
  };
}

/**
 * Times the three against the server at `base`. Each round's medians give one ratio, and the
 * figure is the median of those ratios, so a slow patch of the machine weighs on one round only.
 */
async function measure(where: string, base: string): Promise<{ lines: string[]; ok: boolean }> {
  const ways = variants(base);
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
  const kyRatios: number[] = [];
  const fetchRatios: number[] = [];
  for (const fn of Object.values(ways)) await timeEach(500, fn); // warm-up
  for (let round = 0; round < 15; round++) {
    const m: Record<string, number> = {};
    for (const [name, fn] of Object.entries(ways)) {
      const times = await timeEach(200, fn);
      samples[name]?.push(...times);
      m[name] = median(times);
    }
    kyRatios.push((m.GatewayClient as number) / (m['bare ky'] as number));
    fetchRatios.push((m.GatewayClient as number) / (m['raw fetch'] as number));
  }
  const fmt = (name: string) => `${name} ${median(samples[name] ?? []).toFixed(1)}`;
  const ratio = median(kyRatios);
  const ok = ratio <= TARGET;
  return {
    lines: [
      `overhead (${where}): messages.send, median µs per call — ${fmt('raw fetch')}, ${fmt('bare ky')}, ${fmt('GatewayClient')}`,
      `${verdict(`GatewayClient / bare ky, ${where}`, `${ratio.toFixed(3)}×`, ok, `≤ ${TARGET}×`)}; sdk/fetch ${median(fetchRatios).toFixed(3)}×`,
    ],
    ok,
  };
}

/** The same measure with the server in this process. */
async function inProcess(): Promise<{ lines: string[]; ok: boolean }> {
  const server = (await listenLoopback()) as { url: string; close: () => Promise<void> };
  try {
    return await measure('server in process', server.url);
  } finally {
    await server.close();
  }
}

/** The same measure with the server in a child process, so it does not share the event loop. */
async function inChild(): Promise<{ lines: string[]; ok: boolean }> {
  const child = fork(new URL('./loopback-server.mjs', import.meta.url), {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  try {
    const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
    return await measure('server in a child', `http://127.0.0.1:${chunk.toString().trim()}`);
  } finally {
    child.kill();
  }
}

/** Overhead of a send over bare ky, with the server in this process and in a child. */
export async function overheadBench(): Promise<{ lines: string[]; ok: boolean }> {
  const here = await inProcess();
  const apart = await inChild();
  return { lines: [...here.lines, ...apart.lines], ok: here.ok && apart.ok };
}
