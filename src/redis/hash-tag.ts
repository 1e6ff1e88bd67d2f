const ESCAPES: Record<string, string> = { '{': '%7B', '}': '%7D', '%': '%25' };

/**
 * `{<value>}`, a Redis Cluster hash tag that holds all of `value` whatever its characters, so the
 * keys built as `<prefix><tag><suffix>` for one value share a slot. Redis hashes only the text
 * between a key's first `{` and the first `}` after it, or the whole key when that text is empty:
 * so `{`, `}` and the escape `%` are written `%7B`, `%7D` and `%25`, and an empty value `%`,
 * which no escaped text is. A value without those characters is its own tag.
 */
export function hashTag(value: string): string {
  return value === '' ? '{%}' : `{${value.replace(/[{}%]/g, (c) => ESCAPES[c] as string)}}`;
}
