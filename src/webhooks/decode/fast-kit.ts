/**
 * The fast path of decoding: the schemas of events-v2.ts and events-v3.ts, built from the same
 * functions with a kit of plain functions instead of zod. Each decodes as zod would, with the
 * same lenient readers (lenient.ts), and answers the decoded value (the input itself when it is
 * already canonical, a copy with the fields that change otherwise), {@link NO} when zod would
 * surely reject the value, or {@link UNSURE} when only zod can tell (an object with a prototype of
 * its own or a `__proto__` key). The decoder (items.ts) gives zod only NO and UNSURE values: zod
 * then explains a rejection with its issues, and once the issues it keeps are full a NO is not
 * given to zod at all, so a body of a million bad items costs about what parsing it does. Proven
 * equal to the zod path by test/unit/decode-differential.test.ts over every fixture and a fuzzed
 * corpus.
 * @module
 */
import type * as z from 'zod/mini';
import type { Identity, Kit } from '../../schemas/kit.js';
import { enumSpelling, readBoolean, readId, readNumber } from '../../schemas/lenient.js';

/**
 * zod would reject the value. NO and {@link UNSURE} are the only symbols a decoder answers with,
 * so one `typeof answer === 'symbol'` test tells a decoded value from both; a symbol value itself,
 * which JSON never holds, is then left to zod, as UNSURE is.
 */
export const NO: unique symbol = Symbol('no');
/** zod must decide. */
export const UNSURE: unique symbol = Symbol('unsure');
/** The answer of a fast decoder: the decoded value, or why zod must see it. */
export type FastResult = unknown;
/** A fast decoder of one schema. */
export type FastDecode = (value: unknown) => FastResult;

const or = <T>(value: T | undefined): T | typeof NO => (value === undefined ? NO : value);

/**
 * Whether `o` has any of `keys` set. A function of its own rather than a closure inside the
 * decoder, so that a call of the decoder allocates nothing for it: a flood of bad items makes no
 * garbage per item.
 */
function hasAny(o: Record<string, unknown>, keys: readonly string[]): boolean {
  for (const key of keys) if (o[key] != null) return true;
  return false;
}

function objectDecode(shape: Record<string, FastDecode>, identity?: Identity): FastDecode {
  // Parallel arrays walked by index: this runs for every item of every delivery.
  const keys = Object.keys(shape);
  const fields = keys.map((key) => shape[key] as FastDecode);
  const count = keys.length;
  const anyOf = identity?.anyOf;
  return (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return NO;
    const o = v as Record<string, unknown>;
    let out: Record<string, unknown> | undefined;
    let unsure = false;
    for (let i = 0; i < count; i++) {
      const key = keys[i] as string;
      const value = o[key];
      const decoded = (fields[i] as FastDecode)(value);
      if (typeof decoded === 'symbol') {
        if (decoded === NO) return NO;
        unsure = true;
      } else if (decoded !== value) {
        out ??= { ...o };
        out[key] = decoded;
      }
    }
    if (anyOf && !hasAny(o, anyOf)) return NO;
    // zod copies own enumerable fields into a plain object and drops a `__proto__` key: only a
    // plain object without one is decoded here.
    if (unsure || Object.getPrototypeOf(o) !== Object.prototype || Object.hasOwn(o, '__proto__')) {
      return UNSURE;
    }
    return out ?? o;
  };
}

function listDecode(item: FastDecode): FastDecode {
  return (v) => {
    if (!Array.isArray(v)) return NO;
    let out: unknown[] | undefined;
    let unsure = false;
    for (let i = 0; i < v.length; i++) {
      const value: unknown = v[i];
      const decoded = item(value);
      if (typeof decoded === 'symbol') {
        if (decoded === NO) return NO;
        unsure = true;
      } else if (decoded !== value) {
        out ??= v.slice();
        out[i] = decoded;
      }
    }
    return unsure ? UNSURE : (out ?? v);
  };
}

/** The kit of fast decoders; typed as the zod kit so the same builders accept it (never parsed with). */
export const fastKit = {
  id: (v: unknown) => or(readId(v)),
  str: (v: unknown) => or(readId(v)),
  num: (v: unknown) => or(readNumber(v)),
  bool: (v: unknown) => or(readBoolean(v)),
  unknown: (v: unknown) => v,
  oneOf: (values: readonly string[], prefixes?: readonly string[]) => {
    const spell = enumSpelling(values, prefixes);
    return (v: unknown) => (typeof v === 'string' ? spell(v) : NO);
  },
  opt: (decode: FastDecode) => (v: unknown) => (v == null ? v : decode(v)),
  list: listDecode,
  obj: objectDecode,
} satisfies Record<keyof Kit, unknown> as unknown as Kit;

/** The fast decoder built from a schema builder's output (the builders type it as zod). */
export const asFast = (schema: z.ZodMiniType): FastDecode => schema as unknown as FastDecode;
