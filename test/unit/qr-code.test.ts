import { describe, expect, it } from 'vitest';
import { encodeQr, MAX_QR_VERSION } from '../../src/testing/qr-code.js';
import { readModules } from '../support/qr-read.js';

describe('encodeQr: byte mode, level M, versions 1–10, read back by a decoder', () => {
  const texts = [
    'a',
    'mgsdk-fake:ch_1:0',
    'mgsdk-fake:3f1c2a9e-7b1d-4c55-9a0e-5b8f0e6d2c11:12',
    'Привет, мир — UTF-8 ✓',
    'x'.repeat(60),
    'https://example.test/connect?channel=abcdef&step=qr&n=3'.repeat(2),
    'y'.repeat(150),
    'z'.repeat(213),
  ];
  for (const text of texts) {
    it(`reads back ${text.length} characters`, () => {
      const qr = encodeQr(text);
      expect(qr.size).toBe(qr.version * 4 + 17);
      expect(readModules(qr.modules)).toBe(text);
    });
  }

  it('uses every version from 1 to 10 as the text grows, each readable', () => {
    const seen = new Set<number>();
    for (let n = 1; n <= 213; n += 7) {
      const text = 'k'.repeat(n);
      const qr = encodeQr(text);
      seen.add(qr.version);
      expect(readModules(qr.modules)).toBe(text);
    }
    expect([...seen].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('picks different masks for different contents (the penalty rule, not a fixed mask)', () => {
    const masks = new Set(Array.from({ length: 24 }, (_, i) => encodeQr(`mgsdk-fake:ch_${i}:0`).mask));
    expect(masks.size).toBeGreaterThan(1);
  });

  it(`refuses a text longer than version ${MAX_QR_VERSION} holds`, () => {
    expect(() => encodeQr('z'.repeat(214))).toThrow(/at most 213 bytes; this text has 214/);
  });
});
