// parseWebhook vs JSON.parse alone, µs per delivery on a mixed corpus of the fixtures, in one run,
// with the same results on the fast path and on zod alone; a body of 1,000,000 bad items refused
// vs JSON.parse of it. The timed functions are the built package's (dist/), as
// users run them: the source through tsx carries a __name call per closure that the build does not.
import { isDeepStrictEqual } from 'node:util';
import { parseWebhook, safeParseWebhook } from '../dist/webhooks.js';
// The two decoding paths compared below are internal: that check reads the source, the timing the build.
import { fastDecoders, zodDecoders } from '../src/webhooks/decode/decoders.js';
import { safeDecode } from '../src/webhooks/decode/parse.js';
import { fixtures } from '../test/support/fixtures.js';
import { collectGarbage, median, verdict } from './stats.js';

const corpus = [...fixtures('v2'), ...fixtures('v3')].map(([, text]) => JSON.stringify(JSON.parse(text)));

function perDelivery(fn: (text: string) => unknown, rounds: number): number {
  const t0 = performance.now();
  for (let r = 0; r < rounds; r++) for (const text of corpus) fn(text);
  return ((performance.now() - t0) * 1000) / (rounds * corpus.length);
}

/** Every delivery of the corpus decodes to the same result on the fast path and on zod alone. */
function samePaths(): boolean {
  return corpus.every((text) =>
    isDeepStrictEqual(
      safeDecode(text, undefined, fastDecoders()),
      safeDecode(text, undefined, zodDecoders()),
    ),
  );
}

/**
 * ms to refuse a body of a million `{}` items, and ms to JSON.parse it, medians of 5, each after
 * a full collection (the bodies parsed before would otherwise be collected inside the next one).
 */
function flood(): { decode: number; parse: number; issues: number } {
  const body = `{"event":"message.add","meta":{"idempotency_key":"k","timestamp":1},"data":[${Array(1_000_000).fill('{}').join(',')}]}`;
  const parse: number[] = [];
  const decode: number[] = [];
  let issues = 0;
  for (let i = 0; i < 5; i++) {
    collectGarbage();
    let t0 = performance.now();
    JSON.parse(body);
    parse.push(performance.now() - t0);
    collectGarbage();
    t0 = performance.now();
    const r = safeParseWebhook(body);
    decode.push(performance.now() - t0);
    if (!r.success) issues = r.error.issues.length;
  }
  return { decode: median(decode), parse: median(parse), issues };
}

export async function decodeBench(): Promise<{ lines: string[]; ok: boolean }> {
  // What the benches before this one left in the heap (the Redis fleet's, in a full run) is
  // collected now, not inside the timed rounds of either side.
  collectGarbage();
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
  const same = samePaths();
  const f = flood();
  const floodRatio = f.decode / f.parse;
  return {
    lines: [
      `decode: ${corpus.length} fixtures, median µs per delivery — JSON.parse ${median(base).toFixed(2)}, parseWebhook ${median(ours).toFixed(2)}`,
      verdict('parseWebhook / JSON.parse', `${ratio.toFixed(2)}×`, ratio <= 2, '≤ 2.0×'),
      verdict('fast path and zod alone give the same results on the corpus', String(same), same, 'true'),
      `flood: 1,000,000 items {} — JSON.parse ${f.parse.toFixed(0)} ms, safeParseWebhook ${f.decode.toFixed(0)} ms, ${f.issues} issues kept`,
      verdict(
        'refusing the flood / JSON.parse of it',
        `${floodRatio.toFixed(2)}×`,
        floodRatio <= 2 && f.issues <= 100,
        '≤ 2.0×, ≤ 100 issues',
      ),
    ],
    ok: ratio <= 2 && same && floodRatio <= 2 && f.issues <= 100,
  };
}
