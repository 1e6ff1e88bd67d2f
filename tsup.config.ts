import { defineConfig } from 'tsup';

// All entries are built in one pass with code splitting, so the classes they share (the errors
// above all) live in one chunk: an error thrown through `/webhooks` is `instanceof` the class
// exported by the main entry, in ESM and in CJS alike (DESIGN.md, Entry points).
// The bin `messaging-gateway` (dist/cli.js) keeps the shebang of src/cli/main.ts, and tsup marks
// a file with a shebang executable.
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    webhooks: 'src/webhooks.ts',
    schemas: 'src/schemas.ts',
    redis: 'src/redis.ts',
    testing: 'src/testing.ts',
    cli: 'src/cli/main.ts',
  },
  format: ['esm', 'cjs'],
  splitting: true,
  dts: {
    entry: {
      index: 'src/index.ts',
      webhooks: 'src/webhooks.ts',
      schemas: 'src/schemas.ts',
      redis: 'src/redis.ts',
      testing: 'src/testing.ts',
    },
  },
  sourcemap: true,
  clean: true,
  treeshake: true,
  target: 'node22',
  platform: 'neutral',
  external: ['ky', 'zod', 'eventemitter3', 'ioredis', 'redis'],
});
