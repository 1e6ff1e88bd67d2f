/** What stands in place of a credential found in a string. */
export const REDACTED = '[redacted]';
/**
 * The shortest credential looked for inside text (characters). A shorter one is replaced only
 * where a whole value equals it: inside text it would hide ordinary words (a token `t` in
 * `https`, `dev` in `Device`).
 */
export const MIN_SCRUBBED_LENGTH = 8;
/** What stands in place of what lies deeper than the scrub goes: it is not looked at, so not kept. */
const TOO_DEEP = '[too deep]';
const MAX_DEPTH = 20;

/** What may start an escaped character: `%74`, `&#116;`, `&amp;`, `\u0074`, `\/`. */
const ESCAPE = /[%&\\]/;

/** How the secrets of one client are looked for. */
interface Search {
  /** The secrets it was built for, joined. */
  key: string;
  /** Every spelling of every secret of at least {@link MIN_SCRUBBED_LENGTH}. */
  spellings: string[];
  /** The spellings as they are, in any case: all that a text without {@link ESCAPE} can hold. */
  plain: RegExp | undefined;
  /**
   * The spellings with any of their characters escaped, in any case. Slow to build (tens of
   * milliseconds): built the first time a text holds an escape, never for a plain request id.
   */
  escaped: RegExp | undefined;
  /** The shorter secrets, in lower case, and each preceded by `bearer `. */
  whole: Set<string>;
}

/**
 * Scrubs a client's secrets out of what came from outside (the service's descriptions, data,
 * headers and request ids, a system error's message, a log line) before it reaches an error, a
 * log line or a diagnostics channel. The structure the SDK builds (an error's status, method,
 * url, the names of its fields) is never passed through it, so no secret can hide a word there.
 *
 * A secret of {@link MIN_SCRUBBED_LENGTH} characters or more is replaced wherever it appears, in
 * any letter case, percent-encoded byte by byte, as HTML character references, as JSON string
 * escapes, and in base64 at any offset (so `Bearer <token>` in base64 too). A shorter one only
 * where a whole value is that secret (or `Bearer` and it), in any letter case.
 *
 * Each client owns one: its patterns cost more to build than a whole call's other work, so they
 * are built again only when the client's secrets change (a token function gave a new token), and
 * the one that reads escaped characters only once a text holds one.
 */
export class Redactor {
  readonly #secrets: () => Iterable<string>;
  #built: Search | undefined;

  /** @param secrets - the credentials in use now, asked at each use */
  constructor(secrets: () => Iterable<string>) {
    this.#secrets = secrets;
  }

  /** A string from outside with every secret in it replaced by `[redacted]`. */
  text<T extends string | undefined>(value: T): T {
    if (value === undefined) return value;
    const search = this.#search();
    return (search.key === '' ? value : scrubText(value, search)) as T;
  }

  /**
   * A value from outside (the service's `data`, its headers) with every string in it scrubbed as
   * {@link text} does, keys included, deeply. Past 20 levels a value is replaced whole: it is
   * never kept unread.
   */
  value<T>(value: T): T {
    const search = this.#search();
    return (search.key === '' ? value : scrub(value, search, 0)) as T;
  }

  #search(): Search {
    const given = [...this.#secrets()].filter((s) => s.length > 0);
    const key = given.join('\u0000');
    if (this.#built?.key !== key) this.#built = buildSearch(key, given);
    return this.#built;
  }
}

function buildSearch(key: string, secrets: string[]): Search {
  const long = secrets.filter((s) => s.length >= MIN_SCRUBBED_LENGTH);
  const short = secrets.filter((s) => s.length < MIN_SCRUBBED_LENGTH).map((s) => s.toLowerCase());
  // Longest first, so a spelling holding another is replaced whole.
  const spellings = [...new Set(long.flatMap(spellingsOf))].sort((a, b) => b.length - a.length);
  return {
    key,
    spellings,
    plain: spellings.length ? new RegExp(spellings.map(escapeRegExp).join('|'), 'gi') : undefined,
    escaped: undefined,
    whole: new Set(short.flatMap((s) => [s, `bearer ${s}`])),
  };
}

/**
 * A secret as it is, and the base64 of it wherever it stands in the encoded data. Secrets are
 * printable ASCII (a header carries nothing else), so a character is a byte.
 */
function spellingsOf(secret: string): string[] {
  const cores = [0, 1, 2].map((offset) => base64Core(secret, offset));
  return [secret, ...cores, ...cores.map((core) => core.replace(/\+/g, '-').replace(/\//g, '_'))];
}

/**
 * The base64 characters that depend only on `secret` when `offset` other bytes come before it
 * (and any after): what any base64 holding it contains, `Bearer <token>` as well.
 */
function base64Core(secret: string, offset: number): string {
  const end = offset + secret.length;
  const complete = 4 * Math.floor(end / 3) + (end % 3); // the last partial group's own characters
  return btoa('\0'.repeat(offset) + secret).slice([0, 2, 3][offset], complete);
}

/**
 * A pattern of `spelling` however a service may echo each of its characters: as it is,
 * percent-encoded, as an HTML character reference (decimal or hex, and `&amp;`), or as a JSON
 * string escape (`\u0074`, and `\/`) left in a text that was JSON once.
 */
function writtenAnyWay(spelling: string): string {
  let pattern = '';
  for (const char of spelling) {
    const code = char.charCodeAt(0);
    const hex = code.toString(16);
    const byte = hex.padStart(2, '0');
    const plain = escapeRegExp(char);
    const named = char === '&' ? '|&amp;' : char === '/' ? '|\\\\/' : '';
    pattern += `(?:${plain}|%${byte}|&#0*${code};|&#x0*${hex};|\\\\u00${byte}${named})`;
  }
  return pattern;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function scrubText(value: string, search: Search): string {
  if (search.whole.size && search.whole.has(value.trim().toLowerCase())) return REDACTED;
  if (!search.plain) return value;
  const scrubbed = value.replace(search.plain, REDACTED);
  if (!ESCAPE.test(scrubbed)) return scrubbed;
  search.escaped ??= new RegExp(search.spellings.map(writtenAnyWay).join('|'), 'gi');
  return scrubbed.replace(search.escaped, REDACTED);
}

function scrub(value: unknown, search: Search, depth: number): unknown {
  if (typeof value === 'string') return scrubText(value, search);
  if (typeof value !== 'object' || value === null) return value;
  if (depth > MAX_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) return value.map((v) => scrub(v, search, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[scrubText(k, search)] = scrub(v, search, depth + 1);
  return out;
}
