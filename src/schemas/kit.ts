/**
 * The vocabulary the webhook schemas are written in (events-v2.ts, events-v3.ts). Each schema is
 * written once, as a function of a {@link Kit}: given {@link zodKit} it builds the zod schemas
 * (the one source of truth, and of the types); the decoder also builds its fast path from the
 * same function with a kit of plain functions (src/webhooks/decode/fast-kit.ts), so the two can
 * never describe different shapes. A test proves them equal on every fixture and a fuzzed corpus.
 * @module
 */
import * as z from 'zod/mini';
import {
  expectedMessage,
  idString,
  type Lenient,
  lenientBoolean,
  lenientEnum,
  lenientNumber,
  lenientString,
} from './lenient.js';

/** What identifies an item when no single field does: at least one of these keys must be set. */
export interface Identity<K extends string = string> {
  /** The keys of which at least one must be present and not null. */
  anyOf: readonly K[];
}

/** The field helpers a decoding schema is written with. */
export interface Kit {
  /** An id: a string, or a number decoded to its string; never format-checked. */
  id: z.ZodMiniTransform<string, unknown>;
  /** A documented string; a number decodes to its string. */
  str: z.ZodMiniTransform<string, unknown>;
  /** A number; a numeric string decodes to the number. */
  num: z.ZodMiniTransform<number, unknown>;
  /** A boolean; `"true"`/`"false"` decode to it. */
  bool: z.ZodMiniTransform<boolean, unknown>;
  /** Anything, kept as it came. */
  unknown: z.ZodMiniUnknown;
  /** An enumeration read case-insensitively; unknown values kept as they came. */
  oneOf<const V extends readonly string[]>(
    values: V,
    prefixes?: readonly string[],
  ): z.ZodMiniTransform<Lenient<V[number]>, unknown>;
  /** An optional field: absent, `null`, or the value. */
  opt<S extends z.ZodMiniType>(schema: S): z.ZodMiniOptional<z.ZodMiniNullable<S>>;
  /** An array of items. */
  list<S extends z.ZodMiniType>(item: S): z.ZodMiniArray<S>;
  /**
   * An object: the listed fields are decoded, unknown fields are kept at run time. Its type lists
   * only the known fields (no index signature), so a typo in a field name does not compile.
   */
  obj<S extends z.core.$ZodLooseShape>(shape: S, identity?: Identity<keyof S & string>): z.ZodMiniObject<S>;
}

const objectError = { error: (issue: { input?: unknown }) => expectedMessage('an object', issue.input) };
const arrayError = { error: (issue: { input?: unknown }) => expectedMessage('an array', issue.input) };

/** The kit that builds zod schemas: the public schemas and the source of every decoded type. */
export const zodKit: Kit = {
  id: idString,
  str: lenientString,
  num: lenientNumber,
  bool: lenientBoolean,
  unknown: z.unknown(),
  oneOf: lenientEnum,
  opt: (schema) => z.nullish(schema),
  list: (item) => z.array(item, arrayError),
  obj: (shape, identity) => {
    // Loose at run time (unknown fields kept); typed as a plain object (no index signature).
    const schema = z.looseObject(shape, objectError) as unknown as z.ZodMiniObject<typeof shape>;
    if (!identity) return schema;
    const what = identity.anyOf.join(' or ');
    return schema.check(
      z.refine((o) => identity.anyOf.some((key) => (o as Record<string, unknown>)[key] != null), {
        message: `expected ${what}, got neither`,
        path: [identity.anyOf[0] as string],
      }),
    );
  },
};

/** Builds once, on first use: schemas cost time to construct, and an import should not pay it. */
export function lazy<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => {
    value ??= build();
    return value;
  };
}
