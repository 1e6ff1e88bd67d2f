// `npm run bench`: speed and memory targets as ratios against baselines measured in the same run.
// `npm run bench -- overhead` runs one benchmark by name.

import buildIfStale from '../test/frameworks/global-setup.js';
import { bundleSizeBench } from './bundle-size.js';
import { coldImportBench } from './cold-import.js';
import { decodeBench } from './decode.js';
import { limiterBench } from './limiter.js';
import { otelBench } from './otel.js';
import { overheadBench } from './overhead.js';
import { redisLimiterBench } from './redis-limiter.js';
import { refuseBench } from './refuse.js';
import { webhooksBench } from './webhooks.js';

const benches: Record<string, () => Promise<{ lines: string[]; ok: boolean }>> = {
  overhead: overheadBench,
  limiter: limiterBench,
  'redis-limiter': redisLimiterBench,
  decode: decodeBench,
  'cold-import': coldImportBench,
  webhooks: webhooksBench,
  refuse: refuseBench,
  size: bundleSizeBench,
  otel: otelBench,
};

const only = process.argv.slice(2);
// Benches that run the built package get a dist/ as new as src/.
buildIfStale();
let allOk = true;
console.log(`node ${process.version}, ${new Date().toISOString()}`);
for (const [name, bench] of Object.entries(benches)) {
  if (only.length && !only.includes(name)) continue;
  const { lines, ok } = await bench();
  for (const line of lines) console.log(line);
  allOk &&= ok;
}
console.log(allOk ? 'all targets met' : 'some targets missed');
process.exitCode = allOk ? 0 : 1;
