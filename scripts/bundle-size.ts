// The two bundles an edge user ships, measured as they would build them: `esbuild --bundle
// --minify` of scripts/size/worker.ts (a Workers webhook handler) and scripts/size/client.ts (a
// script that only sends), dependencies included, gzip at its default level. The package's own
// name resolves to src/, so no build is needed. Used by test/e2e/bundle.test.ts (the bounds) and
// `npm run bench` (the figures); `npx tsx scripts/bundle-size.ts` prints them.
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';

const root = join(import.meta.dirname, '..');

/** The bundles and their bounds in bytes of gzip (the README prints the figures). */
export const BUNDLES = {
  worker: { entry: 'scripts/size/worker.ts', maxGzip: 25_000, label: 'Workers webhook handler' },
  client: { entry: 'scripts/size/client.ts', maxGzip: 33_000, label: 'send-only script' },
} as const;

/** One bundle's size, and the files it holds (paths relative to the repo). */
export interface BundleSize {
  minified: number;
  gzip: number;
  inputs: string[];
}

/** Bundles one of {@link BUNDLES} with esbuild as an edge user would. */
export async function measureBundle(name: keyof typeof BUNDLES): Promise<BundleSize> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: [BUNDLES[name].entry],
    bundle: true,
    minify: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    alias: {
      'messaging-gateway-sdk/webhooks': './src/webhooks.ts',
      'messaging-gateway-sdk': './src/index.ts',
    },
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  return { minified: code.byteLength, gzip: gzipSync(code).byteLength, inputs: inputsOf(result.metafile) };
}

// The files that put bytes into the bundle (a file tree-shaken away is listed with 0 bytes).
function inputsOf(metafile: Metafile): string[] {
  const output = Object.values(metafile.outputs)[0];
  return Object.entries(output?.inputs ?? {})
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => path);
}

/** `12.3 kB` (1 kB = 1,000 bytes, as bundlers print it). */
export const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const name of Object.keys(BUNDLES) as (keyof typeof BUNDLES)[]) {
    const size = await measureBundle(name);
    console.log(`${BUNDLES[name].label}: ${kB(size.gzip)} gzip (${kB(size.minified)} minified)`);
  }
}
