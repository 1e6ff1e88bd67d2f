import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ when it is missing or stale: the Bun, Deno and workerd tests run the built entry.
    globalSetup: ['test/frameworks/global-setup.ts'],
    typecheck: { enabled: true, include: ['test/types/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
