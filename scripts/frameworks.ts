// The framework matrix's own project (test/frameworks/package.json and its lockfile): Express 4,
// Fastify 4, koa-body, NestJS, Next.js, Bun, Deno and workerd, kept out of the repository's
// install (they were 600 MB of a 1.1 GB `npm ci`). The matrix's tests resolve them there first
// (Express 5 too, which NestJS brings), and Fastify 5, Koa and Hono from the root, where the
// guides' code blocks (scripts/check-readme.ts) compile against their types.
//   tsx scripts/frameworks.ts install     npm ci in test/frameworks, unless already up to date
//   tsx scripts/frameworks.ts typecheck   tsc on test/frameworks when installed (else nothing),
//                                         run by `npm run typecheck`
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { MATRIX_DIR, matrixState } from '../test/support/system-parts.js';

const root = join(import.meta.dirname, '..');

export function installMatrix(): void {
  const state = matrixState();
  if (state === 'installed') {
    console.log('framework matrix: installed (test/frameworks/node_modules)');
    return;
  }
  console.log(
    `framework matrix: ${state === 'missing' ? 'installing' : 'reinstalling (lockfile changed)'} into test/frameworks/node_modules`,
  );
  const started = Date.now();
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: MATRIX_DIR, stdio: 'inherit' });
  console.log(`framework matrix: installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

export function typecheckMatrix(): void {
  // CI's Node 22 pass skips the matrix; its Node 24 pass checks it.
  if (matrixState() !== 'installed' || process.env.SKIP_FRAMEWORK_TESTS === '1') return;
  execFileSync(
    join(root, 'node_modules', '.bin', 'tsc'),
    ['--noEmit', '-p', join(MATRIX_DIR, 'tsconfig.json')],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
}

const command = process.argv[2];
if (import.meta.url === `file://${process.argv[1]}`) {
  const run = { install: installMatrix, typecheck: typecheckMatrix }[command ?? ''];
  if (!run) {
    console.error('usage: tsx scripts/frameworks.ts install|typecheck');
    process.exit(2);
  }
  try {
    run();
  } catch {
    process.exit(1); // npm or tsc printed what went wrong
  }
}
