import { isRecord } from '../internal/is-record.js';

/**
 * Merges `override` into `base`, returning a new value:
 * - objects merge key by key; a key set to `undefined` in `override` keeps the base value, a key
 *   set to `null` sets null;
 * - an array in `override` decides the length: its item `i` is merged over the base's item `i`
 *   (or over `itemFor(i)` when given, else the base's first item), so `[{ status: 'read' }]`
 *   changes one field of one default item;
 * - anything else in `override` replaces the base value.
 */
export function deepMerge(base: unknown, override: unknown, itemFor?: (index: number) => unknown): unknown {
  if (override === undefined) return base;
  if (Array.isArray(override)) {
    const items = Array.isArray(base) ? base : [];
    return override.map((item, i) => deepMerge(itemFor ? itemFor(i) : (items[i] ?? items[0]), item));
  }
  if (isRecord(override) && isRecord(base)) {
    const merged: Record<string, unknown> = { ...base };
    for (const [key, value] of Object.entries(override)) merged[key] = deepMerge(base[key], value);
    return merged;
  }
  return override;
}
