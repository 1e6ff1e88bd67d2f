// `npm run bench`: speed and memory targets as ratios against baselines measured in the same run,
// each benchmark in a process of its own. `npm run bench -- overhead` runs one benchmark by name.

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildIfStale } from '../scripts/build-if-stale.js';

// Each loaded when it runs, after buildIfStale: several import dist/, and a static import is
// resolved before any code of this file runs (with no dist/ yet, the run stopped right there).
const benches: Record<string, () => Promise<{ lines: string[]; ok: boolean }>> = {
  overhead: async () => (await import('./overhead.js')).overheadBench(),
  limiter: async () => (await import('./limiter.js')).limiterBench(),
  'redis-limiter': async () => (await import('./redis-limiter.js')).redisLimiterBench(),
  decode: async () => (await import('./decode.js')).decodeBench(),
  'cold-import': async () => (await import('./cold-import.js')).coldImportBench(),
  webhooks: async () => (await import('./webhooks.js')).webhooksBench(),
  refuse: async () => (await import('./refuse.js')).refuseBench(),
  size: async () => (await import('./bundle-size.js')).bundleSizeBench(),
  otel: async () => (await import('./otel.js')).otelBench(),
  clients: async () => (await import('./clients.js')).clientsBench(),
  postgres: async () => (await import('./postgres.js')).postgresBench(),
  windows: async () => (await import('./windows.js')).windowsBench(),
};

const only = process.argv.slice(2);
const names = only.length ? only : Object.keys(benches);
// The timing benches time the built package (dist/), as users run it, so they get a dist/ as new as
// src/. The Redis fleet bench runs the source, through the fleet processes of the Redis tests: its
// figures are the service's windows, not the code's speed.
buildIfStale();
let allOk = true;
if (names.length === 1 && process.env.MGSDK_BENCH_CHILD) {
  // One bench, in a process of its own (see below): its lines only.
  const { lines, ok } = await (
    benches[names[0] as string] as () => Promise<{ lines: string[]; ok: boolean }>
  )();
  for (const line of lines) console.log(line);
  process.exitCode = ok ? 0 : 1;
} else {
  console.log(`node ${process.version}, ${new Date().toISOString()}`);
  // Each bench in a process of its own: what one leaves in the heap (the Redis fleet's clients, a
  // million-item body) slowed the next one's JSON.parse by half in a shared process.
  for (const name of names) {
    if (!benches[name])
      throw new Error(`no bench named ${name}; there are ${Object.keys(benches).join(', ')}`);
    const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), name], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, MGSDK_BENCH_CHILD: '1' },
    });
    allOk &&= child.status === 0;
  }
  console.log(allOk ? 'all targets met' : 'some targets missed');
  process.exitCode = allOk ? 0 : 1;
}
