/**
 * The fast path of decoding: the schemas of events-v2.ts and events-v3.ts, built from the same
 * functions with a kit of plain predicates instead of zod. It never decides what zod would not:
 * a check answers OK only when zod would return a value deep-equal to the input (the common case:
 * canonical values), NO only when zod would surely reject it (a field that identifies the item is
 * missing or of the wrong kind), and MAYBE otherwise, leaving the decision to zod. The decoder
 * (decode-items.ts) uses OK to skip zod, and NO to skip zod once the issues it keeps are full, so
 * a body of a million bad items costs about what parsing it does. Proven equal to the zod path by
 * test/unit/decode-differential.test.ts over every fixture and a fuzzed corpus.
 * @module
 */
import type * as z from 'zod/mini';
import type { Identity, Kit } from '../../schemas/kit.js';
import { enumSpelling } from '../../schemas/lenient.js';

/** zod would return the input as it is. */
export const OK = 0;
/** zod must decide. */
export const MAYBE = 1;
/** zod would reject it. */
export const NO = 2;
/** The answer of a check. */
export type Verdict = typeof OK | typeof MAYBE | typeof NO;
/** A fast check of one schema. */
export type Check = (value: unknown) => Verdict;

const idCheck: Check = (v) =>
  typeof v === 'string' ? OK : typeof v === 'number' && Number.isFinite(v) ? MAYBE : NO;

function objectCheck(shape: Record<string, Check>, identity?: Identity): Check {
  // Parallel arrays walked by index: the check runs for every item of every delivery.
  const keys = Object.keys(shape);
  const checks = keys.map((key) => shape[key] as Check);
  const count = keys.length;
  const anyOf = identity?.anyOf;
  return (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return NO;
    const o = v as Record<string, unknown>;
    let verdict: Verdict = OK;
    for (let i = 0; i < count; i++) {
      const field = (checks[i] as Check)(o[keys[i] as string]);
      if (field === NO) return NO;
      if (field === MAYBE) verdict = MAYBE;
    }
    if (anyOf && !anyOf.some((key) => o[key] != null)) return NO;
    // zod copies own enumerable fields into a plain object and drops a `__proto__` key: only a
    // plain object without one is already in that form.
    if (Object.getPrototypeOf(o) !== Object.prototype || Object.hasOwn(o, '__proto__')) return MAYBE;
    return verdict;
  };
}

/** The kit of predicates; typed as the zod kit so the same builders accept it (never parsed with). */
export const checkKit = {
  id: idCheck,
  str: idCheck,
  num: ((v) => (typeof v === 'number' ? OK : typeof v === 'string' ? MAYBE : NO)) as Check,
  bool: ((v) => (typeof v === 'boolean' ? OK : typeof v === 'string' ? MAYBE : NO)) as Check,
  unknown: () => OK,
  oneOf: (values: readonly string[], prefixes?: readonly string[]) => {
    const spell = enumSpelling(values, prefixes);
    return (v: unknown) => (typeof v !== 'string' ? NO : spell(v) === v ? OK : MAYBE);
  },
  opt: (check: Check) => (v: unknown) => (v == null ? OK : check(v)),
  list: (check: Check) => (v: unknown) => {
    if (!Array.isArray(v)) return NO;
    let verdict: Verdict = OK;
    for (const item of v) {
      const r = check(item);
      if (r === NO) return NO;
      if (r === MAYBE) verdict = MAYBE;
    }
    return verdict;
  },
  obj: objectCheck,
} satisfies Record<keyof Kit, unknown> as unknown as Kit;

/** The check built from a schema builder's output (the builders type it as zod). */
export const asCheck = (schema: z.ZodMiniType): Check => schema as unknown as Check;
