import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUNDLES,
  type BundleSize,
  installPacked,
  kB,
  measureBundle,
  type PackedProject,
} from '../../scripts/bundle-size.js';

/**
 * Bundles an entry as tsup does (dependencies external): the packages it imports, and the
 * source files that end up in it.
 */
async function bundle(entry: string): Promise<{ imports: string[]; inputs: string[] }> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    packages: 'external',
    metafile: true,
    logLevel: 'silent',
  });
  const output = Object.values(result.metafile.outputs)[0];
  return {
    imports: (output?.imports ?? []).map((i) => i.path),
    inputs: Object.keys(result.metafile.inputs),
  };
}

const kitOrBin = (inputs: string[]) => inputs.filter((i) => /^src\/(testing|cli)[/.]/.test(i));

describe('Entry points', () => {
  it('/webhooks imports no ky: it runs in any Fetch-API runtime', async () => {
    const { imports } = await bundle('src/webhooks.ts');
    expect(imports).toContain('zod/mini');
    expect(imports).not.toContain('ky');
  });

  it('the main entry does import ky (the check above can fail)', async () => {
    expect((await bundle('src/index.ts')).imports).toContain('ky');
  });

  it('neither the main entry nor /webhooks holds any of the testing kit or the bin', async () => {
    expect(kitOrBin((await bundle('src/index.ts')).inputs)).toEqual([]);
    expect(kitOrBin((await bundle('src/webhooks.ts')).inputs)).toEqual([]);
  });

  it('no entry but /otel imports @opentelemetry/api or holds the /otel code', async () => {
    for (const entry of [
      'src/index.ts',
      'src/webhooks.ts',
      'src/redis.ts',
      'src/schemas.ts',
      'src/testing.ts',
    ]) {
      const { imports, inputs } = await bundle(entry);
      expect(imports.filter((i) => i.startsWith('@opentelemetry/'))).toEqual([]);
      expect(inputs.filter((i) => i.startsWith('src/otel'))).toEqual([]);
    }
    // The check above can fail: /otel does import the API.
    expect((await bundle('src/otel.ts')).imports).toContain('@opentelemetry/api');
  });

  it('the bin does hold the kit (the check above can fail)', async () => {
    expect(kitOrBin((await bundle('src/cli/main.ts')).inputs)).toContain('src/testing/fake-gateway.ts');
  });

  it('/testing loads nothing at import time but node: modules (no zod, no ky)', async () => {
    const { imports } = await bundle('src/testing.ts');
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((i) => !i.startsWith('node:'))).toEqual([]);
  });
});

describe('Size: what an edge user ships (npm pack, then esbuild --bundle --minify, gzip)', () => {
  const zodLocales = (inputs: string[]) => inputs.filter((i) => i.includes('zod/v4/locales/'));
  const zodClassic = (inputs: string[]) => inputs.filter((i) => i.includes('zod/v4/classic/'));
  const sdk = (inputs: string[], folder: RegExp) =>
    inputs
      .map((i) => /node_modules\/messaging-gateway-sdk\/dist\/(.*)$/.exec(i)?.[1])
      .filter((file): file is string => file !== undefined && folder.test(file));
  const kitOrBinOf = (inputs: string[]) => sdk(inputs, /^(testing|cli)[/.]/);
  const ky = (inputs: string[]) => inputs.some((i) => i.includes('node_modules/ky/'));

  let project: PackedProject;
  const sizes: Partial<Record<keyof typeof BUNDLES, BundleSize>> = {};
  let clientForNode: BundleSize;
  beforeAll(async () => {
    project = installPacked();
    for (const name of Object.keys(BUNDLES) as (keyof typeof BUNDLES)[]) {
      sizes[name] = await measureBundle(name, project);
    }
    clientForNode = await measureBundle('client', project, 'node');
  }, 120_000);
  afterAll(() => project?.remove());
  const size = (name: keyof typeof BUNDLES) => sizes[name] as BundleSize;

  it(`a Workers webhook handler stays under ${kB(BUNDLES.worker.maxGzip)} gzip, with no ky and no zod locale`, () => {
    const { gzip, inputs } = size('worker');
    expect(gzip).toBeLessThanOrEqual(BUNDLES.worker.maxGzip);
    expect(ky(inputs)).toBe(false);
    expect(zodLocales(inputs)).toEqual([]);
    expect(zodClassic(inputs)).toEqual([]);
    expect(kitOrBinOf(inputs)).toEqual([]);
  });

  it(`a script that only sends stays under ${kB(BUNDLES.client.maxGzip)} gzip, with no zod locale and none of the webhook handler`, () => {
    const { gzip, inputs } = size('client');
    expect(gzip).toBeLessThanOrEqual(BUNDLES.client.maxGzip);
    expect(zodLocales(inputs)).toEqual([]);
    expect(zodClassic(inputs)).toEqual([]);
    expect(kitOrBinOf(inputs)).toEqual([]);
    expect(sdk(inputs, /^webhooks\//)).toEqual([]);
  });

  // Node itself loads dist/node/ (the exports' `node` condition), which a bundler cannot shake; a
  // bundler targeting Node (a Lambda, a server) matches `node` too, and must take `module` first.
  it('bundled for Node (esbuild --platform=node), the script that only sends reads the per-module build and stays under its bound', () => {
    expect(sdk(clientForNode.inputs, /^node\//)).toEqual([]);
    expect(clientForNode.gzip).toBeLessThanOrEqual(BUNDLES.client.maxGzip);
  });

  it('the bundles are the packed package, the client holds ky and the worker the handler (the checks above can fail)', () => {
    expect(ky(size('client').inputs)).toBe(true);
    expect(size('worker').inputs.some((i) => i.includes('node_modules/zod/'))).toBe(true);
    expect(sdk(size('worker').inputs, /^webhooks\/receive\/handler\.js$/)).toHaveLength(1);
    expect(size('client').inputs.some((i) => i.startsWith('src/'))).toBe(false);
  });
});
