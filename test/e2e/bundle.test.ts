import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

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
    expect(imports).toContain('zod');
    expect(imports).not.toContain('ky');
  });

  it('the main entry does import ky (the check above can fail)', async () => {
    expect((await bundle('src/index.ts')).imports).toContain('ky');
  });

  it('neither the main entry nor /webhooks holds any of the testing kit or the bin', async () => {
    expect(kitOrBin((await bundle('src/index.ts')).inputs)).toEqual([]);
    expect(kitOrBin((await bundle('src/webhooks.ts')).inputs)).toEqual([]);
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
