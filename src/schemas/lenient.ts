/**
 * Building blocks for reading what the service sends (responses and webhooks): structure is
 * checked, values are tolerated (DESIGN.md, Webhooks → Decoding).
 * @module
 */
import { z } from 'zod';

// Each lenient helper is one standalone transform: a single schema node that checks and
// normalises at once. It is the cheapest lenient form zod offers (no union, no pipe), which
// matters on the hot path of webhook decoding (bench: decode).
const expected = (ctx: { issues: unknown[] }, input: unknown, what: string) => {
  ctx.issues.push({ code: 'custom', message: `expected ${what}, got ${describe(input)}`, input });
  return z.NEVER;
};
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

/** An id: a string, or a number that decodes to its string. Never format-checked. */
export const idString = z.transform((v: unknown, ctx): string => {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return expected(ctx, v, 'a string or a number');
});

/** A documented string that may arrive as a number (phones, ids): decodes to the string. */
export const lenientString = idString;

/** Known values of an enumeration, or any other string that arrived (kept as it came). */
export type Lenient<T extends string> = T | (string & {});

/**
 * An enumeration read case-insensitively: a value that matches one of `values` ignoring case
 * decodes to the spec's spelling; any other string is kept as it came, never rejected.
 */
export function lenientEnum<const T extends readonly string[]>(values: T) {
  const exact = new Set<string>(values);
  const folded = new Map(values.map((v) => [v.toLowerCase(), v]));
  return z.transform((v: unknown, ctx): Lenient<T[number]> => {
    if (typeof v !== 'string') return expected(ctx, v, `one of ${values.join(', ')}`);
    return exact.has(v) ? v : (folded.get(v.toLowerCase()) ?? v);
  });
}

/** A boolean that may arrive as the string `"true"` or `"false"` (any case). */
export const lenientBoolean = z.transform((v: unknown, ctx): boolean => {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const lower = v.trim().toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
  }
  return expected(ctx, v, 'a boolean');
});

/** A number that may arrive as a numeric string. */
export const lenientNumber = z.transform((v: unknown, ctx): number => {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
  return expected(ctx, v, 'a number');
});

/** A list answer; `null` (no data) reads as an empty list. */
export const listOf = <S extends z.ZodType>(item: S) =>
  z
    .array(item)
    .nullable()
    .transform((v) => v ?? []);

/**
 * Refinement option: run even when a field already failed, so that a GatewayValidationError
 * lists every broken rule at once. Such refinements must not trust the types of their input.
 */
export const ALWAYS = { when: () => true } as const;

/** The field helpers a decoding schema is built from; see {@link lenientKit} and {@link strictKit}. */
export const lenientKit = {
  id: idString,
  str: lenientString,
  num: lenientNumber,
  bool: lenientBoolean,
  oneOf: lenientEnum,
};
/** The field helpers a decoding schema is built from. */
export type Kit = typeof lenientKit;

/**
 * The fast path of decoding: the same schemas, built from helpers that accept only canonical
 * values (strings as strings, enumerations in the spec's spelling), with no transform at all.
 * Most deliveries pass it; one that does not is decoded again with {@link lenientKit}, which gives
 * the same output for canonical values, so the two builds are one definition.
 */
export const strictKit = {
  id: z.string(),
  str: z.string(),
  num: z.number(),
  bool: z.boolean(),
  oneOf: <const T extends readonly string[]>(values: T) => z.enum(values),
} as unknown as Kit;
