// Generates the Prisma client of examples/prisma/schema.prisma into examples/prisma/generated (not
// committed) when it is missing or older than the schema. Run before the typecheck (the tests and
// the example import it), by the test run's global set-up, and by `npm run examples`. Offline:
// Prisma 7's client needs no engine, and PRISMA_SCHEMA_ENGINE_BINARY pointing at any program
// skips the schema engine's download that `prisma generate` would otherwise attempt.
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(import.meta.dirname, '..');
const schema = join(root, 'examples', 'prisma', 'schema.prisma');
const generated = join(root, 'examples', 'prisma', 'generated', 'client.ts');

const mtime = (file: string) => {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
};

/** Generates the example's Prisma client unless it is as new as its schema. */
export function generatePrismaClient(): void {
  if (mtime(generated) >= mtime(schema)) return;
  const prisma = join(root, 'node_modules', 'prisma', 'build', 'index.js');
  execFileSync(process.execPath, [prisma, 'generate', '--schema', schema], {
    cwd: root,
    stdio: 'pipe', // its output only when it fails (in the error thrown)
    env: {
      ...process.env,
      PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
    },
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) generatePrismaClient();
