/**
 * Building blocks for reading what the service sends (responses and webhooks): structure is
 * checked, values are tolerated (DESIGN.md, Webhooks → Decoding).
 * @module
 */
import { z } from 'zod';

/** An id: a string, or a number that decodes to its string. Never format-checked. */
export const idString = z.union([z.string(), z.number()]).transform((v) => String(v));

/** A documented string that may arrive as a number (phones, ids): decodes to the string. */
export const lenientString = idString;

/** Known values of an enumeration, or any other string that arrived (kept as it came). */
export type Lenient<T extends string> = T | (string & {});

/**
 * An enumeration read case-insensitively: a value that matches one of `values` ignoring case
 * decodes to the spec's spelling; any other string is kept as it came, never rejected.
 */
export function lenientEnum<const T extends readonly string[]>(values: T) {
  const canonical = new Map(values.map((v) => [v.toLowerCase(), v]));
  return z.string().transform((v): Lenient<T[number]> => canonical.get(v.toLowerCase()) ?? v);
}

/** A boolean that may arrive as the string `"true"` or `"false"` (any case). */
export const lenientBoolean = z.union([z.boolean(), z.string()]).transform((v, ctx) => {
  if (typeof v === 'boolean') return v;
  const lower = v.trim().toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  ctx.addIssue({ code: 'custom', message: `expected a boolean, got ${JSON.stringify(v)}` });
  return z.NEVER;
});

/** A number that may arrive as a numeric string. */
export const lenientNumber = z.union([z.number(), z.string()]).transform((v, ctx) => {
  if (typeof v === 'number') return v;
  const n = Number(v);
  if (v.trim() === '' || Number.isNaN(n)) {
    ctx.addIssue({ code: 'custom', message: `expected a number, got ${JSON.stringify(v)}` });
    return z.NEVER;
  }
  return n;
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
