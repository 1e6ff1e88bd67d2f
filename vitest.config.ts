import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (file: string) => fileURLToPath(new URL(`./src/${file}`, import.meta.url));

export default defineConfig({
  // Tests written as a user writes them import the package by its name: map it to the source.
  resolve: {
    alias: [
      { find: /^messaging-gateway-sdk$/, replacement: src('index.ts') },
      { find: /^messaging-gateway-sdk\/webhooks$/, replacement: src('webhooks.ts') },
      { find: /^messaging-gateway-sdk\/schemas$/, replacement: src('schemas.ts') },
      { find: /^messaging-gateway-sdk\/redis$/, replacement: src('redis.ts') },
      { find: /^messaging-gateway-sdk\/testing$/, replacement: src('testing.ts') },
      { find: /^messaging-gateway-sdk\/otel$/, replacement: src('otel.ts') },
    ],
  },
  test: {
    // examples/*.test.ts are the README's testing example: run in CI like every other test.
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    // Builds dist/ when it is missing or stale: the Bun, Deno and workerd tests run the built entry.
    globalSetup: ['test/frameworks/global-setup.ts'],
    typecheck: { enabled: true, include: ['test/types/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
