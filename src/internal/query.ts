// Reading and masking the query of a delivery's address (a path or a full URL) without a URL
// parser: the sender chooses the address, so each helper costs one pass over it, and each reads
// keys and values as URLSearchParams does. The receive path reads the secret and the listeners'
// address with them; the command line masks the addresses it prints.

const encoder = new TextEncoder();

/**
 * Calls `visit` with the bounds of each non-empty `key=value` pair in the query of `url` (a path
 * or a full address), in order, until it returns true: the key is `[key, eq)`, the value
 * `[eq + 1, end)` (empty when `eq === end`, a pair without `=`). Nothing is decoded, and the
 * string's own search finds each `&` and `=`: the next `=` is searched for only once the pairs
 * have passed the last one found, so a hostile query costs one pass over its length.
 */
function scanQuery(url: string, visit: (key: number, eq: number, end: number) => boolean | undefined): void {
  const start = url.indexOf('?');
  if (start < 0) return;
  const hash = url.indexOf('#', start);
  const end = hash < 0 ? url.length : hash;
  let nextEquals = -1;
  for (let key = start + 1; key < end; ) {
    let pairEnd = url.indexOf('&', key);
    if (pairEnd < 0 || pairEnd > end) pairEnd = end;
    if (nextEquals < key) {
      nextEquals = url.indexOf('=', key);
      if (nextEquals < 0) nextEquals = url.length;
    }
    if (pairEnd > key && visit(key, Math.min(nextEquals, pairEnd), pairEnd)) return;
    key = pairEnd + 1;
  }
}

const PERCENT = 0x25;
const PLUS = 0x2b;

/**
 * Whether `text[from, to)` decodes to `name` (ASCII; lower case when `anyCase`), read as
 * URLSearchParams reads a key (`+` is a space, `%XX` a byte, a malformed escape itself), without
 * decoding it: it stops at the first character that differs, so a key costs at most a few times
 * the name's length whatever it holds. A byte over 0x7F never matches: it is not ASCII.
 */
function keyIs(text: string, from: number, to: number, name: string, anyCase: boolean): boolean {
  let at = 0;
  for (let i = from; i < to; i++, at++) {
    if (at === name.length) return false;
    let code = text.charCodeAt(i);
    if (code === PLUS) code = 0x20;
    else if (code === PERCENT && i + 2 < to) {
      const byte = hexByte(text.charCodeAt(i + 1), text.charCodeAt(i + 2));
      if (byte >= 0) {
        code = byte;
        i += 2;
      }
    }
    if (anyCase && code >= 0x41 && code <= 0x5a) code += 0x20;
    if (code !== name.charCodeAt(at)) return false;
  }
  return at === name.length;
}

/** The byte of two hex digits (character codes), or -1 when either is not one. */
function hexByte(high: number, low: number): number {
  const h = hexDigit(high);
  const l = hexDigit(low);
  return h < 0 || l < 0 ? -1 : h * 16 + l;
}

function hexDigit(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * A query value decoded as URLSearchParams decodes it: `+` is a space, `%XX` a byte (a malformed
 * escape stays as it is), and the bytes are read as UTF-8 (invalid sequences become U+FFFD).
 * Throws nothing, so a malformed escape costs no more than any other character.
 */
function decodeQueryPart(part: string): string {
  if (!part.includes('%')) return part.includes('+') ? part.replaceAll('+', ' ') : part;
  const bytes = encoder.encode(part);
  let length = 0;
  for (let i = 0; i < bytes.length; i++, length++) {
    let byte = bytes[i] as number;
    if (byte === PLUS) byte = 0x20;
    else if (byte === PERCENT && i + 2 < bytes.length) {
      const escaped = hexByte(bytes[i + 1] as number, bytes[i + 2] as number);
      if (escaped >= 0) {
        byte = escaped;
        i += 2;
      }
    }
    bytes[length] = byte; // never ahead of the reading: decoding only shortens
  }
  return utf8.decode(bytes.subarray(0, length));
}

/**
 * The first value of `name` (ASCII) in the query of `url` (a path or a full address), decoded as
 * URLSearchParams decodes it; null when absent. Only that one value is decoded; the other pairs
 * are compared with `name` where they stand, so a hostile query costs one pass over its length.
 */
export function queryValue(url: string, name: string): string | null {
  let value: string | null = null;
  scanQuery(url, (key, eq, end) => {
    if (!keyIs(url, key, eq, name, false)) return false;
    value = decodeQueryPart(url.slice(Math.min(eq + 1, end), end));
    return true;
  });
  return value;
}

/**
 * The address with every `secret` query value replaced by `mask` (its key read as `queryValue`
 * reads it, in any case).
 */
export function maskSecret(url: string, mask = '***'): string {
  let masked = '';
  let copied = 0;
  scanQuery(url, (key, eq, end) => {
    if (keyIs(url, key, eq, 'secret', true)) {
      masked += `${url.slice(copied, eq)}=${mask}`;
      copied = end;
    }
    return false;
  });
  return copied === 0 ? url : masked + url.slice(copied);
}

/**
 * The path and query of `url` (a path or a full address) without its `secret` pairs (their keys
 * read as {@link maskSecret} reads them, in any case): what a listener may see of the address.
 */
export function listenerUrl(url: string): string {
  const full = pathAndQuery(url);
  // A fragment never reaches a server; one a client sent anyway is dropped, with whatever it holds.
  const hash = full.indexOf('#');
  const path = hash < 0 ? full : full.slice(0, hash);
  const query = path.indexOf('?');
  if (query < 0) return path;
  const kept: string[] = [];
  scanQuery(path, (key, eq, end) => {
    if (!keyIs(path, key, eq, 'secret', true)) kept.push(path.slice(key, end));
    return false;
  });
  const rest = kept.length > 0 ? `?${kept.join('&')}` : '';
  return path.slice(0, query) + rest;
}

/** `url` from its path on: the origin of a full address dropped, a path kept as it is. */
function pathAndQuery(url: string): string {
  if (url.startsWith('/')) return url;
  const scheme = url.indexOf('://');
  if (scheme < 0) return url;
  const rest = url.slice(scheme + 3);
  const at = rest.search(/[/?#]/);
  if (at < 0) return '/';
  return rest[at] === '/' ? rest.slice(at) : `/${rest.slice(at)}`;
}
