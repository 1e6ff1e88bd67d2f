/** What stands in place of a credential found in a string. */
export const REDACTED = '[redacted]';
/** What stands in place of what lies deeper than the scrub goes: it is not looked at, so not kept. */
const TOO_DEEP = '[too deep]';
const MAX_DEPTH = 20;

/**
 * Replaces every occurrence of a client's secrets in the strings of a value (deeply, for plain
 * objects and arrays, in keys as in values, whatever the letter case), so that nothing the
 * service echoes back can carry a credential into an error, a log line or
 * `JSON.stringify(error)`. Past 20 levels a value is replaced whole: it is never kept unread.
 *
 * Each client owns one: the pattern (every spelling of every secret, one regular expression)
 * costs more to build than a whole call's other work, so it is built again only when the
 * client's secrets change (a token function gave a new token).
 */
export class Redactor {
  readonly #secrets: () => Iterable<string>;
  /** The secrets the pattern was built for, joined, and the pattern (none for no secret). */
  #built: { key: string; pattern: RegExp | undefined } | undefined;

  /** @param secrets - the credentials in use now, asked at each call */
  constructor(secrets: () => Iterable<string>) {
    this.#secrets = secrets;
  }

  /** `value` with every secret replaced by `[redacted]`. */
  redact<T>(value: T): T {
    const pattern = this.#pattern();
    if (!pattern) return value;
    return scrub(value, pattern, 0) as T;
  }

  #pattern(): RegExp | undefined {
    const given = [...this.#secrets()];
    const key = given.join('\u0000');
    if (this.#built?.key !== key) this.#built = { key, pattern: buildPattern(given) };
    return this.#built.pattern;
  }
}

function buildPattern(secrets: string[]): RegExp | undefined {
  const list = [...new Set(secrets.filter((s) => s.length > 0).flatMap(spellings))];
  if (list.length === 0) return undefined;
  // Longest first, so a spelling holding another is replaced whole.
  list.sort((a, b) => b.length - a.length);
  return new RegExp(list.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gi');
}

/**
 * The spellings a service may echo a secret back in: URL-encoded, base64 (padded, unpadded and
 * URL-safe), and as it is. Base64 of the UTF-8 bytes, so a secret of any characters is covered.
 */
function spellings(secret: string): string[] {
  let binary = '';
  for (const byte of new TextEncoder().encode(secret)) binary += String.fromCharCode(byte);
  const b64 = btoa(binary);
  const bare = b64.replace(/=+$/, '');
  return [encodeURIComponent(secret), b64, bare, bare.replace(/\+/g, '-').replace(/\//g, '_'), secret];
}

function scrub(value: unknown, pattern: RegExp, depth: number): unknown {
  if (typeof value === 'string') return value.replace(pattern, REDACTED);
  if (typeof value !== 'object' || value === null) return value;
  if (depth > MAX_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) return value.map((v) => scrub(v, pattern, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[k.replace(pattern, REDACTED)] = scrub(v, pattern, depth + 1);
  return out;
}
