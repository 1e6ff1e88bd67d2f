import type { z } from 'zod';

/** A plain predicate: does the value already have the decoded form? */
export type Check = (value: unknown) => boolean;

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  element?: z.ZodType;
  entries?: Record<string, string>;
  checks?: unknown[];
};

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Compiles a strict decoding schema (built from `strictKit`: loose objects, arrays, optional and
 * nullable wrappers, enumerations, strings, numbers, booleans, unknown) into a plain predicate,
 * read from the schema's own definition. When it holds, the schema would return a value equal to
 * its input, so the input can be used as it is: the fast path of webhook decoding. Returns
 * undefined for any construct it does not know (refinements, transforms, …), so the caller keeps
 * to zod there, and objects carrying a `__proto__` key fail it, so zod handles those.
 */
export function compileCheck(schema: z.ZodType): Check | undefined {
  const def = defOf(schema);
  if (def.checks && def.checks.length > 0) return undefined;
  switch (def.type) {
    case 'string':
      return (v) => typeof v === 'string';
    case 'number':
      return (v) => typeof v === 'number' && Number.isFinite(v);
    case 'boolean':
      return (v) => typeof v === 'boolean';
    case 'unknown':
    case 'any':
      return () => true;
    case 'enum': {
      const values = new Set(Object.values(def.entries ?? {}));
      return (v) => typeof v === 'string' && values.has(v);
    }
    case 'optional': {
      // optional(nullable(x)), as .nullish() builds it, becomes one test: fewer calls per field.
      const innerDef = defOf(def.innerType as z.ZodType);
      if (innerDef.type === 'nullable' && !innerDef.checks?.length) {
        const inner = compileCheck(innerDef.innerType as z.ZodType);
        return inner && ((v) => v == null || inner(v));
      }
      const inner = compileCheck(def.innerType as z.ZodType);
      return inner && ((v) => v === undefined || inner(v));
    }
    case 'nullable': {
      const inner = compileCheck(def.innerType as z.ZodType);
      return inner && ((v) => v === null || inner(v));
    }
    case 'array': {
      const element = compileCheck(def.element as z.ZodType);
      return element && ((v) => Array.isArray(v) && v.every(element));
    }
    case 'object':
      return compileObject(def);
    default:
      return undefined;
  }
}

function compileObject(def: Def): Check | undefined {
  // Only loose objects (unknown keys kept as they are) give an output equal to the input.
  if (!def.catchall || defOf(def.catchall).type !== 'unknown') return undefined;
  const fields: [string, Check][] = [];
  for (const [key, field] of Object.entries(def.shape ?? {})) {
    const check = compileCheck(field);
    if (!check) return undefined;
    fields.push([key, check]);
  }
  return (v) => {
    if (!isPlainObject(v) || Object.hasOwn(v, '__proto__')) return false;
    for (const [key, check] of fields) if (!check(v[key])) return false;
    return true;
  };
}
