/**
 * A secret held once and compared with received values in constant time. The loop runs over the
 * received value only (whose length the sender knows already), reading the expected UTF-16 code
 * units cyclically, and folds the length difference into the result: the time taken depends on
 * neither the expected secret's content nor its length. Plain JavaScript with no allocation, so
 * it runs in any runtime and costs next to nothing on every delivery.
 */
export class SecretMatcher {
  readonly #expected: string;

  constructor(expected: string) {
    if (expected.length === 0) throw new RangeError('a secret must not be empty');
    this.#expected = expected;
  }

  /** Whether `received` equals the secret. */
  matches(received: string | null | undefined): boolean {
    const a = received ?? '';
    const b = this.#expected;
    let diff = a.length ^ b.length;
    for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i % b.length);
    return diff === 0;
  }

  /** Never shows the secret (console.log, util.inspect, JSON.stringify). */
  toJSON(): string {
    return '[secret]';
  }
}
