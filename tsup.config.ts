import { chmodSync, cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from 'esbuild';
import { defineConfig, type Options } from 'tsup';

// Four builds into dist/, run side by side:
//
// - ESM, one file per source module (`bundle: false`): what bundlers read. A user's bundler keeps
//   only the modules an import reaches (package.json has `sideEffects: false`), so a script that
//   only sends ships none of the webhook handler. A split build puts every module that the same
//   entries reach into one shared chunk, and a bundler cannot drop the top-level code of a chunk it
//   imports anything from (zod schema calls, class definitions): the send-only script then carried
//   the whole handler (DESIGN.md, Entry points: Size).
// - ESM for Node (the `node` condition of package.json's exports), all entries in one pass with
//   code splitting into dist/node/: Node loads each file of an import as a module of its own, and
//   about a hundred files cost a process tens of milliseconds at start-up that a few chunks do not.
//   Every entry under the `node` condition comes from this build, so each class has one copy there.
//   Bundlers match `node` too when they target Node (esbuild --platform=node, webpack's target
//   node), and a chunk is what they cannot shake: the exports' `module` condition, which bundlers
//   match and Node, Deno and Bun do not, comes first and gives them the first build.
// - CJS, all entries in one pass with code splitting, so the classes they share (the errors above
//   all) live in one chunk: an error thrown through `/webhooks` is `instanceof` the class exported
//   by the main entry. In ESM each module is one file, so each class has one copy there too.
// - The declarations of the public entries (`.d.ts` for import, `.d.cts` for require).
//
// Each build cleans only its own files (the builds run at once, and under `--watch` a change
// rebuilds only the builds that read the file): the patterns after `**/*` keep the others', and the
// Node build empties dist/node/ itself as it starts. The bin `messaging-gateway` is dist/cli.js, a
// two-line file that imports dist/cli/main.js (with its shebang, and executable).

/** The public entries: each gets its .d.ts and .d.cts; the bin needs none. */
const entries = {
  index: 'src/index.ts',
  webhooks: 'src/webhooks.ts',
  schemas: 'src/schemas.ts',
  redis: 'src/redis.ts',
  postgres: 'src/postgres.ts',
  testing: 'src/testing.ts',
  otel: 'src/otel.ts',
};

const DECLARATIONS = '!**/*.d.{ts,cts,mts}';

const shared: Options = {
  // Maps point at the sources by path and carry no copy of them (`sourcesContent`): a copy was
  // half of the unpacked package, and a stack trace needs only the file and line names.
  sourcemap: true,
  esbuildOptions(options) {
    options.sourcesContent = false;
  },
  target: 'node22',
  platform: 'neutral',
  // Keep `node:` in imports: Deno and workers resolve built-ins only by that prefix.
  removeNodeProtocol: false,
  external: ['ky', 'zod', 'ioredis', 'redis', 'pg', '@opentelemetry/api', /^node:/],
};

/** Empties `dir` as each build starts (a rebuild under `--watch` too), so no older chunk stays. */
function emptyAtStart(dir: string): Plugin {
  return {
    name: 'empty-at-start',
    setup: (build) => build.onStart(() => rmSync(dir, { recursive: true, force: true })),
  };
}

function writeBin(outDir: string): void {
  const bin = join(outDir, 'cli.js');
  writeFileSync(bin, "#!/usr/bin/env node\nimport './cli/main.js';\n");
  chmodSync(bin, 0o755);
}

// `tsup --out-dir <dir>` (test/e2e/declarations.test.ts) builds elsewhere: the bin goes there too.
export default defineConfig((cli) => [
  {
    ...shared,
    entry: ['src/**/*.ts'],
    format: ['esm'],
    bundle: false,
    clean: ['!**/*.cjs', '!**/*.cjs.map', DECLARATIONS, '!node/**'],
    onSuccess: async () => {
      writeBin(cli.outDir ?? 'dist');
      // The PostgreSQL migrations as plain SQL, for users' own migration tools.
      cpSync('src/postgres/sql', join(cli.outDir ?? 'dist', 'postgres', 'sql'), { recursive: true });
    },
  },
  {
    ...shared,
    entry: Object.fromEntries(Object.entries(entries).map(([name, file]) => [`node/${name}`, file])),
    format: ['esm'],
    splitting: true,
    // tsup's clean always starts from `**/*` (the other builds' files): this build empties only
    // dist/node/, which the others' cleans keep.
    clean: false,
    esbuildPlugins: [emptyAtStart(join(cli.outDir ?? 'dist', 'node'))],
    esbuildOptions(options) {
      shared.esbuildOptions?.(options, { format: 'esm' });
      options.chunkNames = 'node/chunk-[hash]';
    },
  },
  {
    ...shared,
    entry: entries,
    format: ['cjs'],
    splitting: true,
    treeshake: true,
    clean: ['!**/*.js', '!**/*.js.map', DECLARATIONS],
  },
  {
    ...shared,
    entry: entries,
    format: ['esm', 'cjs'],
    dts: { entry: entries, only: true },
    clean: true,
  },
]);
