// `npm run examples`: runs every example in examples/ (against the local stand-in gateway unless
// GATEWAY_BASE_URL and GATEWAY_TOKEN are set); exits non-zero if one fails.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const skip = new Set(['setup.ts']);
const only = process.argv.slice(2);
const files = readdirSync('examples')
  .filter((f) => f.endsWith('.ts') && !skip.has(f))
  .filter((f) => only.length === 0 || only.includes(f))
  .sort();
let failed = 0;
for (const file of files) {
  console.log(`\n── examples/${file}`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', `examples/${file}`], {
    stdio: 'inherit',
    timeout: 60_000,
  });
  if (run.status !== 0) {
    failed++;
    console.error(`examples/${file} failed (exit ${run.status ?? run.signal})`);
  }
}
console.log(`\n${files.length - failed} passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
