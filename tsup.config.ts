import { defineConfig } from 'tsup';

// All entries are built in one pass with code splitting, so the classes they share (the errors
// above all) live in one chunk: an error thrown through `/webhooks` is `instanceof` the class
// exported by the main entry, in ESM and in CJS alike (DESIGN.md, Entry points).
// The bin `messaging-gateway` (dist/cli.js) keeps the shebang of src/cli/main.ts, and tsup marks
// a file with a shebang executable.
// The public entries: each gets its .d.ts; the bin needs none.
const entries = {
  index: 'src/index.ts',
  webhooks: 'src/webhooks.ts',
  schemas: 'src/schemas.ts',
  redis: 'src/redis.ts',
  testing: 'src/testing.ts',
  otel: 'src/otel.ts',
};

export default defineConfig({
  entry: { ...entries, cli: 'src/cli/main.ts' },
  format: ['esm', 'cjs'],
  splitting: true,
  dts: { entry: entries },
  sourcemap: true,
  clean: true,
  treeshake: true,
  target: 'node22',
  platform: 'neutral',
  // Keep `node:` in imports: Deno and workers resolve built-ins only by that prefix.
  removeNodeProtocol: false,
  external: ['ky', 'zod', 'eventemitter3', 'ioredis', 'redis', '@opentelemetry/api', /^node:/],
});
