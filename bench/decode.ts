// parseWebhook vs JSON.parse alone, µs per delivery on a mixed corpus of the fixtures, in one run
// (issue #4); and the minified + gzip size of the /webhooks entry, dependencies excluded.
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { parseWebhook } from '../src/webhooks/parse.js';
import { fixtures } from '../test/support/fixtures.js';
import { median, verdict } from './stats.js';

const corpus = [...fixtures('v2'), ...fixtures('v3')].map(([, text]) => JSON.stringify(JSON.parse(text)));

function perDelivery(fn: (text: string) => unknown, rounds: number): number {
  const t0 = performance.now();
  for (let r = 0; r < rounds; r++) for (const text of corpus) fn(text);
  return ((performance.now() - t0) * 1000) / (rounds * corpus.length);
}

async function entrySize(): Promise<{ minified: number; gzip: number }> {
  const result = await build({
    entryPoints: ['src/webhooks.ts'],
    bundle: true,
    minify: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    packages: 'external',
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  return { minified: code.byteLength, gzip: gzipSync(code).byteLength };
}

export async function decodeBench(): Promise<{ lines: string[]; ok: boolean }> {
  for (let i = 0; i < 3; i++) {
    perDelivery(JSON.parse, 200);
    perDelivery(parseWebhook, 200);
  }
  const base: number[] = [];
  const ours: number[] = [];
  for (let i = 0; i < 15; i++) {
    base.push(perDelivery(JSON.parse, 200));
    ours.push(perDelivery(parseWebhook, 200));
  }
  const ratio = median(ours) / median(base);
  const size = await entrySize();
  return {
    lines: [
      `decode: ${corpus.length} fixtures, median µs per delivery — JSON.parse ${median(base).toFixed(2)}, parseWebhook ${median(ours).toFixed(2)}`,
      verdict('parseWebhook / JSON.parse', `${ratio.toFixed(2)}×`, ratio <= 2, '≤ 2.0×'),
      `size: /webhooks entry ${(size.minified / 1024).toFixed(1)} KiB minified, ${(size.gzip / 1024).toFixed(1)} KiB gzip (zod and eventemitter3 excluded)`,
    ],
    ok: ratio <= 2,
  };
}
