// Cold import of the built entries vs importing zod alone: each a fresh `node` process, rounds
// interleaved so drift hits all alike, medians of wall time (node's own start-up included, as a
// user's process pays it). It imports the package by its name, as a user does, so package.json's
// exports choose the file (Node gets dist/node/, the chunked build); `npm run bench` builds dist/ first.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { median, verdict } from './stats.js';

/** Bounds on an entry's cold import, as a multiple of importing zod alone. */
const MAX_MAIN = 1.3;
const MAX_WEBHOOKS = 1.3;

const variants: Record<string, string> = {
  node: '',
  zod: "await import('zod');",
  main: "await import('messaging-gateway-sdk');",
  '/webhooks': "await import('messaging-gateway-sdk/webhooks');",
};

export async function coldImportBench(): Promise<{ lines: string[]; ok: boolean }> {
  if (!existsSync('dist/node/index.js'))
    return { lines: ['cold import: run `npm run build` first'], ok: false };
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  for (let round = 0; round < 21; round++) {
    for (const [name, code] of Object.entries(variants)) {
      const t0 = performance.now();
      execFileSync(process.execPath, ['--input-type=module', '-e', code], { stdio: 'ignore' });
      if (round > 0) samples[name]?.push(performance.now() - t0);
    }
  }
  const ms = (name: string) => median(samples[name] ?? []);
  const main = ms('main') / ms('zod');
  const hooks = ms('/webhooks') / ms('zod');
  return {
    lines: [
      `cold import, median ms of 20: node alone ${ms('node').toFixed(1)}, zod ${ms('zod').toFixed(1)}, main ${ms('main').toFixed(1)}, /webhooks ${ms('/webhooks').toFixed(1)}`,
      verdict('main entry / zod alone', `${main.toFixed(2)}×`, main <= MAX_MAIN, `≤ ${MAX_MAIN}×`),
      verdict(
        '/webhooks entry / zod alone',
        `${hooks.toFixed(2)}×`,
        hooks <= MAX_WEBHOOKS,
        `≤ ${MAX_WEBHOOKS}×`,
      ),
    ],
    ok: main <= MAX_MAIN && hooks <= MAX_WEBHOOKS,
  };
}
