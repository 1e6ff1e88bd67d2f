// Memory of a partner's many accounts: 10,000 clients derived with `withOptions({ token })` from
// one client, measured as the growth of the heap after a full GC (a child process run with
// --expose-gc), fresh and after each made one call (its HTTP instances are built on first use);
// beside it, 10,000 independent clients as a partner built them before, each with its own limiter.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { verdict } from './stats.js';

const COUNT = 10_000;
/** The target per derived client, after its first call (bytes). */
const TARGET_BYTES = 4096;

export async function clientsBench(): Promise<{ lines: string[]; ok: boolean }> {
  const child = spawnSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), 'measure'],
    { encoding: 'utf8' },
  );
  if (child.status !== 0)
    return { lines: [`clients: the measuring process failed: ${child.stderr}`], ok: false };
  const { fresh, used, independent } = JSON.parse(child.stdout) as {
    fresh: number;
    used: number;
    independent: number;
  };
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;
  return {
    lines: [
      `clients: ${COUNT} derived with withOptions({ token }): ${kb(fresh)} each fresh, ${kb(used)} after one call each; independent clients ${kb(independent)} each fresh`,
      verdict('derived client, after one call', kb(used), used <= TARGET_BYTES, `≤ ${kb(TARGET_BYTES)}`),
    ],
    ok: used <= TARGET_BYTES,
  };
}

const gc = (globalThis as { gc?: () => void }).gc;

function heap(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

async function measure(): Promise<void> {
  const { GatewayClient } = await import('../dist/index.js');
  const answer = () => new Response('{"data":[]}', { headers: { 'content-type': 'application/json' } });
  const options = { baseUrl: 'http://127.0.0.1:9/api', token: 'parent', logLevel: 'off' as const };
  const parent = new GatewayClient({ ...options, fetch: async () => answer() });
  await parent.withOptions({ token: 'warm' }).channels.list(); // code loaded and compiled first

  const before = heap();
  const clients = Array.from({ length: COUNT }, (_, i) => parent.withOptions({ token: `token-${i}` }));
  const fresh = (heap() - before) / COUNT;
  for (let i = 0; i < COUNT; i += 500) {
    await Promise.all(clients.slice(i, i + 500).map((client) => client.channels.list()));
  }
  const used = (heap() - before) / COUNT;
  clients.length = 0;

  const start = heap();
  const fetch = async () => answer();
  const independent = Array.from(
    { length: COUNT },
    (_, i) => new GatewayClient({ ...options, token: `token-${i}`, fetch }),
  );
  const independentBytes = (heap() - start) / independent.length;
  process.stdout.write(JSON.stringify({ fresh, used, independent: independentBytes }));
}

if (process.argv[2] === 'measure') await measure();
