// The Bun, Deno and workerd tests run the BUILT /webhooks entry (dist/), as users get it. CI builds
// before it tests; a local `npm test` builds here when dist/ is missing or older than src/.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

function newestSource(): number {
  const files = readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true });
  return Math.max(
    ...files.filter((f) => f.isFile()).map((f) => statSync(join(f.parentPath, f.name)).mtimeMs),
  );
}

function builtAt(): number {
  try {
    return statSync(join(root, 'dist', 'webhooks.js')).mtimeMs;
  } catch {
    return 0;
  }
}

export default function setup(): void {
  if (process.env.SKIP_FRAMEWORK_TESTS === '1') return;
  if (builtAt() >= newestSource()) return;
  console.log('dist/ is missing or older than src/: building it for the runtime tests (npm run build)');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}
