import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { BUNDLES, kB, measureBundle } from '../../scripts/bundle-size.js';

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

  it('/testing loads nothing at import time but node: modules (no zod, no ky, no eventemitter3)', async () => {
    const { imports } = await bundle('src/testing.ts');
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((i) => !i.startsWith('node:'))).toEqual([]);
  });
});

describe('Size: what an edge user ships (esbuild --bundle --minify, gzip)', () => {
  const zodLocales = (inputs: string[]) => inputs.filter((i) => i.includes('zod/v4/locales/'));
  const zodClassic = (inputs: string[]) => inputs.filter((i) => i.includes('zod/v4/classic/'));

  it(`a Workers webhook handler stays under ${kB(BUNDLES.worker.maxGzip)} gzip, with no ky and no zod locale`, async () => {
    const size = await measureBundle('worker');
    expect(size.gzip).toBeLessThanOrEqual(BUNDLES.worker.maxGzip);
    expect(size.inputs.some((i) => i.includes('node_modules/ky/'))).toBe(false);
    expect(zodLocales(size.inputs)).toEqual([]);
    expect(zodClassic(size.inputs)).toEqual([]);
    expect(kitOrBin(size.inputs)).toEqual([]);
  });

  it(`a script that only sends stays under ${kB(BUNDLES.client.maxGzip)} gzip, with no zod locale`, async () => {
    const size = await measureBundle('client');
    expect(size.gzip).toBeLessThanOrEqual(BUNDLES.client.maxGzip);
    expect(zodLocales(size.inputs)).toEqual([]);
    expect(zodClassic(size.inputs)).toEqual([]);
    expect(kitOrBin(size.inputs)).toEqual([]);
  });

  it('the client bundle does hold ky and the worker bundle zod (the checks above can fail)', async () => {
    expect((await measureBundle('client')).inputs.some((i) => i.includes('node_modules/ky/'))).toBe(true);
    expect((await measureBundle('worker')).inputs.some((i) => i.includes('node_modules/zod/'))).toBe(true);
  });
});
