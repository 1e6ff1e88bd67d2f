import type { z } from 'zod';
import { type Check, compileCheck } from './compile-check.js';

/** The fast check compiled from a strict schema, and the lenient schema of the same output. */
export interface TwoPass<S extends z.ZodType = z.ZodType> {
  check: Check | undefined;
  lenient: S;
}

/** Pairs a strict build (compiled into a plain check) with its lenient twin. */
export function twoPass<S extends z.ZodType>(strict: z.ZodType, lenient: S): TwoPass<S> {
  return { check: compileCheck(strict), lenient };
}

/**
 * A canonical value, as most deliveries are, passes the compiled check and is used as it is; any
 * other is decoded by the lenient schema, which tolerates what the spec's tables do not say
 * (DESIGN.md, Decoding) and reports structural problems. Measured in `npm run bench` (decode).
 */
export function parseTwoPass(schemas: TwoPass, value: unknown): z.ZodSafeParseResult<unknown> {
  if (schemas.check?.(value)) return { success: true, data: value };
  return schemas.lenient.safeParse(value);
}
