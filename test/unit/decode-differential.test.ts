// One source of truth: the fast path of decoding (fast-kit.ts) is proven equal to zod alone, on
// every fixture and on 10,000+ fuzzed variants: the same acceptance, deep-equal output, the same
// rejected items and the same issues.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastDecoders, zodDecoders } from '../../src/webhooks/decode/decoders.js';
import { NO, UNSURE } from '../../src/webhooks/decode/fast-kit.js';
import { safeDecode } from '../../src/webhooks/decode/parse.js';
import { fixtures } from '../support/fixtures.js';

const RUNS = 12_000;
const bodies = [...fixtures('v2'), ...fixtures('v3'), ...fixtures('invalid')].map(([, text]) => text);
const parsedFixtures = [...fixtures('v2'), ...fixtures('v3')].map(([, t]) => JSON.parse(t) as unknown);

function same(body: unknown): void {
  const fast = safeDecode(body, undefined, fastDecoders());
  const slow = safeDecode(body, undefined, zodDecoders());
  expect(fast.success).toBe(slow.success);
  if (fast.success && slow.success) expect(fast.data).toStrictEqual(slow.data);
  if (!fast.success && !slow.success) {
    expect(fast.error.issues).toStrictEqual(slow.error.issues);
    expect(fast.error.omitted).toBe(slow.error.omitted);
  }
}

/** Values a delivery may really carry in place of a canonical one. */
const variant = fc.oneof(
  fc.constantFrom(null, undefined, true, false, 'true', 'FALSE', '', '42', 'Inbound', 'DELIVERED', 'TIER_1k'),
  fc.integer(),
  fc.double(),
  fc.string(),
  fc.constantFrom({}, [], [{}], Object.create(null)),
  // Never in JSON, but a framework's parsed value may hold one: the fast path leaves it to zod.
  fc.constant(Symbol.for('a symbol')),
  fc.jsonValue(),
);

/** Every (parent, key) slot of a value, parents before children. */
function slotsOf(root: unknown): [Record<string | number, unknown>, string | number][] {
  const out: [Record<string | number, unknown>, string | number][] = [];
  const stack = [root];
  while (stack.length) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    for (const key of Object.keys(node)) {
      out.push([node as Record<string, unknown>, Array.isArray(node) ? Number(key) : key]);
      stack.push((node as Record<string, unknown>)[key]);
    }
  }
  return out;
}

/** A fixture with up to three slots replaced, removed, upper-cased or turned into a number. */
const fuzzed = fc
  .tuple(
    fc.constantFrom(...parsedFixtures),
    fc.array(fc.tuple(fc.nat(), fc.nat(4), variant), { maxLength: 3 }),
  )
  .map(([base, edits]) => {
    const copy = structuredClone(base);
    for (const [pick, how, value] of edits) {
      const slots = slotsOf(copy);
      if (slots.length === 0) break;
      const [parent, key] = slots[pick % slots.length] as [Record<string | number, unknown>, string | number];
      const old = parent[key];
      if (how === 0 && !Array.isArray(parent)) delete parent[key];
      else if (how === 1 && typeof old === 'string') parent[key] = old.toUpperCase();
      else if (how === 2 && typeof old === 'string' && /^\d+$/.test(old)) parent[key] = Number(old);
      else parent[key] = typeof value === 'symbol' ? value : structuredClone(value);
    }
    return copy;
  });

describe('The fast path equals zod alone', () => {
  it('on every fixture (text and parsed)', () => {
    for (const text of bodies) {
      same(text);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        continue;
      }
      same(parsed);
    }
  });

  it(`on ${RUNS} fuzzed variants of the fixtures`, () => {
    fc.assert(
      fc.property(fuzzed, (body) => same(body)),
      { numRuns: RUNS },
    );
  });

  it('decodes every item of every fixture without zod', () => {
    // Guards the tests above against a fast path that always answers "ask zod".
    const { v2, v3 } = fastDecoders();
    for (const body of parsedFixtures as Record<string, unknown>[]) {
      const pairs: [((value: unknown) => unknown) | undefined, unknown][] = [];
      if (typeof body.event === 'string' && Array.isArray(body.data)) {
        const decoder = (v2 as Record<string, { fast?: (value: unknown) => unknown }>)[body.event];
        for (const item of body.data) pairs.push([decoder?.fast, item]);
      }
      for (const [key, decoder] of [
        ['messages', v3.message],
        ['statuses', v3.status],
        ['channelsUpdates', v3.channelUpdate],
      ] as const) {
        for (const item of (body[key] as unknown[] | undefined) ?? []) pairs.push([decoder.fast, item]);
      }
      for (const key of ['createContact', 'createDeal', 'templateStatus'] as const) {
        if (body[key] != null) pairs.push([v3[key].fast, body[key]]);
      }
      for (const [fast, item] of pairs) {
        if (!fast) continue; // an event the SDK does not know
        const decoded = fast(item);
        expect(decoded).not.toBe(NO);
        expect(decoded).not.toBe(UNSURE);
      }
    }
  });
});
