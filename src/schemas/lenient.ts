/**
 * Building blocks for reading what the service sends (responses and webhooks): structure is
 * checked, values are tolerated.
 * @module
 */
import * as z from 'zod/mini';

/**
 * What came, named by kind and never by value: a message may be logged, and a delivery's values
 * are phones and texts (`missing`, `null`, `a number`, `an object`, …).
 */
export function kindOf(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

/** The message of every decoding issue: the expected shape and the kind of what came. */
export function expectedMessage(what: string, input: unknown): string {
  return `expected ${what}, got ${kindOf(input)}`;
}

// Each lenient helper is one standalone transform: a single schema node that checks and
// normalises at once. It is the cheapest lenient form zod offers (no union, no pipe).
const expected = (ctx: { issues: unknown[] }, input: unknown, what: string) => {
  ctx.issues.push({ code: 'custom', message: expectedMessage(what, input), input });
  return z.NEVER;
};

/** What an id or documented string accepts. */
export const STRING_OR_NUMBER = 'a string or a number';

/** An id as decoded: the string, a finite number's string, or `undefined` when it is neither. */
export function readId(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

/** An id: a string, or a number that decodes to its string. Never format-checked. */
export const idString = z.transform((v: unknown, ctx): string => {
  return readId(v) ?? expected(ctx, v, STRING_OR_NUMBER);
});

/** A documented string that may arrive as a number (phones, ids): decodes to the string. */
export const lenientString = idString;

/** Known values of an enumeration, or any other string that arrived (kept as it came). */
export type Lenient<T extends string> = T | (string & {});

/**
 * The spec's spelling of an enumeration value: exact matches as they are, a match ignoring case
 * in the spec's spelling, a value starting with one of `prefixes` ignoring case (the values the
 * spec names only up to a trailing underscore) lower-cased as the spec writes them, anything else
 * kept as it came.
 */
export function enumSpelling(
  values: readonly string[],
  prefixes: readonly string[] = [],
): (v: string) => string {
  const exact = new Set<string>(values);
  const folded = new Map(values.map((v) => [v.toLowerCase(), v]));
  return (v) => {
    if (exact.has(v)) return v;
    const lower = v.toLowerCase();
    return folded.get(lower) ?? (prefixes.some((prefix) => lower.startsWith(prefix)) ? lower : v);
  };
}

/**
 * An enumeration read case-insensitively: a value that matches one of `values` ignoring case
 * decodes to the spec's spelling; any other string is kept as it came, never rejected.
 */
export function lenientEnum<const T extends readonly string[]>(values: T, prefixes?: readonly string[]) {
  const spell = enumSpelling(values, prefixes);
  return z.transform((v: unknown, ctx): Lenient<T[number]> => {
    // Any string is accepted (unknown values are kept), so the issue asks for a string.
    if (typeof v !== 'string') return expected(ctx, v, 'a string');
    return spell(v);
  });
}

/** A boolean as decoded (`"true"`/`"false"` in any case too), or `undefined` when it is not one. */
export function readBoolean(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const lower = v.trim().toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
  }
  return undefined;
}

/** A boolean that may arrive as the string `"true"` or `"false"` (any case). */
export const lenientBoolean = z.transform((v: unknown, ctx): boolean => {
  return readBoolean(v) ?? expected(ctx, v, 'a boolean');
});

/** A number as decoded (a numeric string too), or `undefined` when it is not one. */
export function readNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
  return undefined;
}

/** A number that may arrive as a numeric string. */
export const lenientNumber = z.transform((v: unknown, ctx): number => {
  return readNumber(v) ?? expected(ctx, v, 'a number');
});

/** A list answer; `null` (no data) reads as an empty list. */
export const listOf = <S extends z.ZodMiniType>(item: S) =>
  z.pipe(
    z.nullable(z.array(item)),
    z.transform((v: z.output<S>[] | null) => v ?? []),
  );

/**
 * Refinement option: run even when a field already failed, so that a GatewayValidationError
 * lists every broken rule at once. Such refinements must not trust the types of their input.
 */
export const ALWAYS = { when: () => true } as const;
