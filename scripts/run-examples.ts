// `npm run examples`: runs every example script in examples/ (against the package's fake gateway
// unless GATEWAY_BASE_URL and GATEWAY_TOKEN are set); exits non-zero if one fails. The vitest
// files among them (`*.test.ts`) run with the tests instead (vitest.config.ts includes them).
// The Prisma example's client is generated first (offline); the examples that need a real
// PostgreSQL (DATABASE_URL) get a private one when none is given and PostgreSQL is installed.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { type PostgresServer, postgresBinDir, startPostgresServer } from '../test/support/postgres-server.js';
import { generatePrismaClient } from './prisma-generate.js';

const skip = new Set(['setup.ts', 'crm-scenes.ts']);
/** The examples that need a real PostgreSQL (DATABASE_URL); the others bring PGlite or nothing. */
const needDatabase = new Set(['prisma-crm.ts']);
const only = process.argv.slice(2);
const files = readdirSync('examples')
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !skip.has(f))
  .filter((f) => only.length === 0 || only.includes(f))
  .sort();
generatePrismaClient();
const bin =
  process.env.DATABASE_URL || !files.some((f) => needDatabase.has(f)) ? undefined : postgresBinDir();
const server: PostgresServer | undefined = bin ? await startPostgresServer(bin) : undefined;
const env = server ? { ...process.env, DATABASE_URL: server.url } : process.env;
let failed = 0;
try {
  for (const file of files) {
    console.log(`\n── examples/${file}`);
    const run = spawnSync(process.execPath, ['--import', 'tsx', `examples/${file}`], {
      stdio: 'inherit',
      timeout: 120_000, // a safety net: PGlite's start alone took 30 s on a busy machine
      env,
    });
    if (run.status !== 0) {
      failed++;
      console.error(`examples/${file} failed (exit ${run.status ?? run.signal})`);
    }
  }
} finally {
  await server?.stop();
}
console.log(`\n${files.length - failed} passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
