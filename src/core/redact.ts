/** What stands in place of a credential found in a string. */
export const REDACTED = '[redacted]';

/**
 * Replaces every occurrence of the given secrets in the strings of `value` (deeply, for plain
 * objects and arrays), so that nothing the service echoes back can carry a credential into an
 * error, a log line or `JSON.stringify(error)`.
 */
export function redact<T>(value: T, secrets: Iterable<string>, depth = 0): T {
  const list = [...secrets].filter((s) => s.length >= 4).flatMap(spellings);
  if (list.length === 0) return value;
  return scrub(value, list, depth) as T;
}

/**
 * The spellings a service may echo a secret back in: URL-encoded, base64 (padded, unpadded and
 * URL-safe), and as it is last, so a longer spelling holding it goes first. Base64 of the UTF-8
 * bytes, so a secret of any characters is covered.
 */
function spellings(secret: string): string[] {
  let binary = '';
  for (const byte of new TextEncoder().encode(secret)) binary += String.fromCharCode(byte);
  const b64 = btoa(binary);
  const bare = b64.replace(/=+$/, '');
  return [encodeURIComponent(secret), b64, bare, bare.replace(/\+/g, '-').replace(/\//g, '_'), secret];
}

function scrub(value: unknown, secrets: string[], depth: number): unknown {
  if (typeof value === 'string') {
    let out = value;
    for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  }
  if (depth > 20 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = scrub(v, secrets, depth + 1);
  return out;
}
