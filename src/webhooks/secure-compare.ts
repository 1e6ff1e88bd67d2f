const encoder = new TextEncoder();

/**
 * A secret held once, as bytes, and compared with received values in constant time. The loop
 * runs over the received value only (whose length the sender knows already), reading the
 * expected bytes cyclically, and folds the length difference into the result: the time taken
 * depends on neither the expected secret's content nor its length. Plain JavaScript, so it runs
 * in any runtime, and cheap enough for every delivery (no digest per request).
 */
export class SecretMatcher {
  readonly #expected: Uint8Array;

  constructor(expected: string) {
    this.#expected = encoder.encode(expected);
    if (this.#expected.byteLength === 0) throw new RangeError('a secret must not be empty');
  }

  /** Whether `received` equals the secret. */
  matches(received: string | null | undefined): boolean {
    const a = encoder.encode(received ?? '');
    const b = this.#expected;
    let diff = a.byteLength ^ b.byteLength;
    for (let i = 0; i < a.byteLength; i++) diff |= (a[i] as number) ^ (b[i % b.byteLength] as number);
    return diff === 0;
  }

  /** Never shows the secret (console.log, util.inspect, JSON.stringify). */
  toJSON(): string {
    return '[secret]';
  }
}

/** Compares two strings in constant time (see {@link SecretMatcher}). */
export function secureEquals(received: string, expected: string): boolean {
  return expected !== '' && new SecretMatcher(expected).matches(received);
}
