const encoder = new TextEncoder();

async function digest(value: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(value)));
}

/**
 * Compares a received secret with the expected one in constant time: both are hashed with
 * SHA-256 (so neither length nor content leaks through timing) and the digests compared with no
 * early exit. WebCrypto, so it runs in any runtime.
 */
export async function secureEquals(received: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([digest(received), digest(expected)]);
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}
