// `npm run examples`: runs every example script in examples/ (against the package's fake gateway
// unless GATEWAY_BASE_URL and GATEWAY_TOKEN are set); exits non-zero if one fails. The vitest
// files among them (`*.test.ts`) run with the tests instead (vitest.config.ts includes them).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const skip = new Set(['setup.ts']);
const only = process.argv.slice(2);
const files = readdirSync('examples')
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !skip.has(f))
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
