import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/** Bundles an entry as tsup does (dependencies external) and lists the packages it imports. */
async function importsOf(entry: string): Promise<string[]> {
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
  return (output?.imports ?? []).map((i) => i.path);
}

describe('Entry points', () => {
  it('/webhooks imports no ky: it runs in any Fetch-API runtime', async () => {
    const imports = await importsOf('src/webhooks.ts');
    expect(imports).toContain('zod');
    expect(imports).not.toContain('ky');
  });

  it('the main entry does import ky (the check above can fail)', async () => {
    expect(await importsOf('src/index.ts')).toContain('ky');
  });
});
