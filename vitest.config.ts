import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { tooOldNode } from './scripts/check-node.mjs';
import { skipFrameworkMatrix } from './test/support/system-parts.js';

// On a Node older than package.json's engines the suite fails by the hundred: stop with one line.
const tooOld = tooOldNode();
if (tooOld) {
  console.error(tooOld);
  process.exit(1);
}

/**
 * `npm run test:quick` (MGSDK_TEST_QUICK=1): the unit and end-to-end tests, without what needs a
 * program of the system or runs for minutes: the PostgreSQL and Redis suites (their crash runs
 * with them), the bin in a real terminal (tmux), the inbox page in a browser, the completion
 * scripts in their shells, every example run, the framework matrix and the type tests.
 */
const quick = process.env.MGSDK_TEST_QUICK === '1';
const QUICK_LEAVES_OUT = [
  'test/postgres/**',
  'test/redis/**',
  'test/frameworks/**',
  'test/e2e/cli-channels-connect.test.ts', // tmux
  'test/e2e/demo.test.ts', // tmux
  'test/e2e/cli-completion.test.ts', // bash, zsh and fish in tmux
  'test/e2e/inbox-browser.test.ts', // chromium
  'test/e2e/inbox-hostile-data.test.ts', // chromium
  'test/e2e/inbox-load.test.ts', // chromium
  'test/e2e/examples.test.ts', // every script of examples/, npm run examples
];

const src = (file: string) => fileURLToPath(new URL(`./src/${file}`, import.meta.url));

export default defineConfig({
  // Tests written as a user writes them import the package by its name: map it to the source.
  resolve: {
    alias: [
      { find: /^messaging-gateway-sdk$/, replacement: src('index.ts') },
      { find: /^messaging-gateway-sdk\/webhooks$/, replacement: src('webhooks.ts') },
      { find: /^messaging-gateway-sdk\/schemas$/, replacement: src('schemas.ts') },
      { find: /^messaging-gateway-sdk\/redis$/, replacement: src('redis.ts') },
      { find: /^messaging-gateway-sdk\/postgres$/, replacement: src('postgres.ts') },
      { find: /^messaging-gateway-sdk\/testing$/, replacement: src('testing.ts') },
      { find: /^messaging-gateway-sdk\/otel$/, replacement: src('otel.ts') },
    ],
  },
  test: {
    // examples/*.test.ts are the README's testing example: run in CI like every other test.
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    // The framework matrix has its own packages (test/frameworks/package.json): without them its
    // files are left out, with one line saying how to install them (node:http needs none).
    exclude: [
      ...configDefaults.exclude,
      ...(!quick && skipFrameworkMatrix() ? ['test/frameworks/!(node-http).test.ts'] : []),
      ...(quick ? QUICK_LEAVES_OUT : []),
    ],
    // Builds dist/ when it is missing or stale: the Bun, Deno and workerd tests run the built entry.
    // And generates the example's Prisma client (not committed), which the ORM tests use.
    globalSetup: ['test/frameworks/global-setup.ts', 'test/support/prisma-global-setup.ts'],
    typecheck: { enabled: !quick, include: ['test/types/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    // Safety nets only, generous for a busy 2-core machine running two files at once: no test
    // holds a wall-clock budget, and anything started (a server, a PGlite, the bin) is waited on
    // until it says it is ready, not for a time.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
