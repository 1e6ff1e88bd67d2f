import { isRecord } from '../internal/is-record.js';

/**
 * Merges `override` into `base`, returning a new value:
 * - objects merge key by key; a key set to `undefined` in `override` keeps the base value, a key
 *   set to `null` sets null; a `__proto__` key (as `JSON.parse` makes one) is a field like any
 *   other, never the result's prototype;
 * - an array in `override` decides the length: its item `i` is merged over the base's item `i`
 *   (or over `itemFor(i)` when given, else the base's first item), so `[{ status: 'read' }]`
 *   changes one field of one default item;
 * - anything else in `override`, or any override with no base under it, is taken as it is.
 *
 * It goes only as deep as `base` does (the defaults, a few levels), never as deep as `override`:
 * an override nested 100,000 levels deep cannot overflow the call stack.
 */
export function deepMerge(base: unknown, override: unknown, itemFor?: (index: number) => unknown): unknown {
  if (override === undefined) return base;
  if (base === undefined && !itemFor) return override;
  if (Array.isArray(override)) {
    const items = Array.isArray(base) ? base : [];
    return override.map((item, i) => deepMerge(itemFor ? itemFor(i) : (items[i] ?? items[0]), item));
  }
  if (isRecord(override) && isRecord(base)) {
    const merged: Record<string, unknown> = { ...base };
    for (const [key, value] of Object.entries(override)) {
      const under = Object.hasOwn(base, key) ? base[key] : undefined;
      Object.defineProperty(merged, key, {
        value: deepMerge(under, value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return merged;
  }
  return override;
}
