import { describe, expect, it } from 'vitest';
import { listenerUrl, maskSecret, queryValue } from '../../src/internal/query.js';

// Random queries over the characters that matter to the scan (separators, escapes, the key's
// letters in both cases), checked against URLSearchParams, the reading the SDK promises.
const ALPHABET = ['s', 'S', 'e', 'c', 'r', 't', 'x', '=', '=', '&', '&', '&', '%', '2', '0', '+', '#', '?'];

function randomQuery(random: () => number): string {
  const length = Math.floor(random() * 24);
  let text = '';
  for (let i = 0; i < length; i++) text += ALPHABET[Math.floor(random() * ALPHABET.length)];
  return text;
}

/** A small seeded generator, so a failure names a query that can be replayed. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

/** The pairs URLSearchParams reads from the query of `url`, as a URL parser splits it. */
function pairsOf(url: string): [string, string][] {
  return [...new URL(url, 'http://localhost').searchParams];
}

describe('Reading the query agrees with URLSearchParams', () => {
  const random = seeded(7);
  const urls = Array.from(
    { length: 5_000 },
    () => `/hooks?${randomQuery(random)}secret=${randomQuery(random)}`,
  );

  it('finds the first secret value as URLSearchParams.get does', () => {
    for (const url of urls) {
      const expected = pairsOf(url).find(([key]) => key === 'secret')?.[1] ?? null;
      expect(queryValue(url, 'secret'), url).toBe(expected);
    }
  });

  it('removes exactly the pairs whose key is secret in any case, and keeps the others in order', () => {
    for (const url of urls) {
      const kept = pairsOf(url).filter(([key]) => key.toLowerCase() !== 'secret');
      const left = listenerUrl(url);
      expect(left.includes('#'), url).toBe(false);
      expect(left.includes('?') ? pairsOf(left) : [], url).toEqual(kept);
    }
  });

  it('masks every secret value and nothing else', () => {
    for (const url of urls) {
      const masked = maskSecret(url);
      const expected = pairsOf(url).map(([key, value]) => [
        key,
        key.toLowerCase() === 'secret' ? '***' : value,
      ]);
      expect(pairsOf(masked), url).toEqual(expected);
    }
  });
});
