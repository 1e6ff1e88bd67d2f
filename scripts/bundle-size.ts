// The two bundles an edge user ships, measured as they would build them: the package packed
// (`npm pack`) and installed in a scratch project outside the repository, then `esbuild --bundle
// --minify` of scripts/size/worker.ts (a Workers webhook handler) and scripts/size/client.ts (a
// script that only sends), dependencies included, gzip at its default level. The package is
// measured as published, not its source: how dist/ is laid out decides what a bundler can leave out.
// Used by test/e2e/bundle.test.ts (the bounds) and `npm run bench` (the figures);
// `npx tsx scripts/bundle-size.ts` prints them.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { buildIfStale } from './build-if-stale.js';

const root = join(import.meta.dirname, '..');

/** The bundles and their bounds in bytes of gzip (the README prints the figures). */
export const BUNDLES = {
  worker: { entry: 'scripts/size/worker.ts', maxGzip: 25_000, label: 'Workers webhook handler' },
  client: { entry: 'scripts/size/client.ts', maxGzip: 35_000, label: 'send-only script' },
} as const;

/** One bundle's size, and the files it holds (paths relative to the scratch project). */
export interface BundleSize {
  minified: number;
  gzip: number;
  inputs: string[];
}

/** A scratch project with the packed package installed; `remove()` deletes it. */
export interface PackedProject {
  dir: string;
  remove(): void;
}

/**
 * Packs the package (dist/ built first when stale) and installs the tarball in a new folder under
 * the system's temporary directory, with the versions of its dependencies that the repository's
 * lockfile pins, so the figures move only when the package or the lockfile does.
 */
export function installPacked(): PackedProject {
  buildIfStale();
  const dir = mkdtempSync(join(tmpdir(), 'mgsdk-size-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    // --ignore-scripts: dist/ is fresh (above); `prepack` would build it a second time.
    const tarball = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], {
      cwd: root,
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .pop();
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'size-check', private: true, type: 'module' }),
    );
    execFileSync(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        '--silent',
        `./${tarball}`,
        ...lockedDependencies(),
      ],
      { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    return { dir, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/** `name@version` of each runtime dependency, as package-lock.json pins it. */
function lockedDependencies(): string[] {
  const read = (file: string) => JSON.parse(readFileSync(join(root, file), 'utf8'));
  const { dependencies = {} } = read('package.json') as { dependencies?: Record<string, string> };
  const { packages } = read('package-lock.json') as { packages: Record<string, { version: string }> };
  return Object.keys(dependencies).map((name) => `${name}@${packages[`node_modules/${name}`]?.version}`);
}

/**
 * Bundles one of {@link BUNDLES} with esbuild as an edge user would, in `project`; `platform`
 * `'node'` bundles as for a Node server or a Lambda (esbuild then matches the exports' `node`
 * condition). Default `'neutral'`.
 */
export async function measureBundle(
  name: keyof typeof BUNDLES,
  project: PackedProject,
  platform: 'neutral' | 'node' = 'neutral',
): Promise<BundleSize> {
  const entry = join(project.dir, basename(BUNDLES[name].entry));
  copyFileSync(join(root, BUNDLES[name].entry), entry);
  const result = await build({
    absWorkingDir: project.dir,
    entryPoints: [entry],
    bundle: true,
    minify: true,
    write: false,
    format: 'esm',
    platform,
    mainFields: ['module', 'main'],
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
  const project = installPacked();
  try {
    for (const name of Object.keys(BUNDLES) as (keyof typeof BUNDLES)[]) {
      const size = await measureBundle(name, project);
      console.log(`${BUNDLES[name].label}: ${kB(size.gzip)} gzip (${kB(size.minified)} minified)`);
    }
  } finally {
    project.remove();
  }
}
