// Builds dist/ (`npm run build`) when it is missing or older than src/ or the build's config. Run before `npm test` (its
// typecheck reads the benches, which import the built package) and `npm run bench` (which times the
// built package, as users run it), and by the test run's global set-up for the Bun, Deno and workerd
// tests, which run dist/. CI builds first, so there it does nothing.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(import.meta.dirname, '..');

function newestSource(): number {
  const files = readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true });
  return Math.max(
    statSync(join(root, 'tsup.config.ts')).mtimeMs,
    ...files.filter((f) => f.isFile()).map((f) => statSync(join(f.parentPath, f.name)).mtimeMs),
  );
}

// The older of the two ESM builds (for bundlers, and for Node in dist/node/); 0 when one is missing.
function builtAt(): number {
  try {
    return Math.min(
      ...['webhooks.js', 'node/webhooks.js'].map((f) => statSync(join(root, 'dist', f)).mtimeMs),
    );
  } catch {
    return 0;
  }
}

/** Builds dist/ unless it is at least as new as every file of src/ and the build's config. */
export function buildIfStale(): void {
  if (builtAt() >= newestSource()) return;
  console.log('dist/ is missing or older than src/ or tsup.config.ts: building it (npm run build)');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) buildIfStale();
