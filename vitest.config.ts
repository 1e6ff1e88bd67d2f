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
      ...(skipFrameworkMatrix() ? ['test/frameworks/!(node-http).test.ts'] : []),
    ],
    // Builds dist/ when it is missing or stale: the Bun, Deno and workerd tests run the built entry.
    // And generates the example's Prisma client (not committed), which the ORM tests use.
    globalSetup: ['test/frameworks/global-setup.ts', 'test/support/prisma-global-setup.ts'],
    typecheck: { enabled: true, include: ['test/types/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
