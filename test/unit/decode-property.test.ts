import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WebhookParseError } from '../../src/core/errors.js';
import { safeParseWebhook } from '../../src/webhooks/decode/parse.js';
import { fixtures } from '../support/fixtures.js';

const RUNS = 10_000;

/** The contract: a result, never a throw; a failure is always a WebhookParseError with the raw body. */
function holdsContract(body: unknown): boolean {
  let result: ReturnType<typeof safeParseWebhook>;
  try {
    result = safeParseWebhook(body as string);
  } catch {
    return false;
  }
  if (result.success) return result.data.api === 'v2' || result.data.api === 'v3';
  return (
    result.error instanceof WebhookParseError && result.error.issues.length > 0 && 'rawBody' in result.error
  );
}

const valid = [...fixtures('v2'), ...fixtures('v3')].map(([, text]) => JSON.parse(text) as unknown);

/** A valid fixture with one value somewhere replaced by a random JSON value, or one key removed. */
const mutated = fc
  .tuple(fc.constantFrom(...valid), fc.nat(), fc.jsonValue(), fc.boolean())
  .map(([base, pick, replacement, remove]) => {
    const copy = structuredClone(base);
    const slots: [Record<string, unknown> | unknown[], string | number][] = [];
    const walk = (node: unknown) => {
      if (Array.isArray(node)) {
        node.forEach((v, i) => {
          slots.push([node, i]);
          walk(v);
        });
      } else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          slots.push([node as Record<string, unknown>, k]);
          walk(v);
        }
      }
    };
    walk(copy);
    if (slots.length === 0) return replacement;
    const [parent, key] = slots[pick % slots.length] as [Record<string | number, unknown>, string | number];
    if (remove && !Array.isArray(parent)) delete parent[key];
    else parent[key] = replacement;
    return copy;
  });

describe('Decoding: property tests (fast-check)', () => {
  it(`never throws and only ever fails with WebhookParseError: ${RUNS} random JSON values`, () => {
    fc.assert(fc.property(fc.jsonValue(), holdsContract), { numRuns: RUNS });
  });

  it(`holds for ${RUNS} mutated valid fixtures (also given as text)`, () => {
    fc.assert(
      fc.property(mutated, fc.boolean(), (body, asText) =>
        holdsContract(asText ? JSON.stringify(body) : body),
      ),
      { numRuns: RUNS },
    );
  });

  it(`holds for ${RUNS} random strings and byte arrays`, () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.uint8Array(), fc.anything()), holdsContract), {
      numRuns: RUNS,
    });
  });

  it('decodes every fixture after a round trip through text and bytes', () => {
    for (const body of valid) {
      const text = JSON.stringify(body);
      expect(safeParseWebhook(new TextEncoder().encode(text))).toEqual(safeParseWebhook(text));
    }
  });
});
