import { UsageError } from './io.js';

/**
 * Turns `--set` arguments into an overrides object: `a.0.b=text` sets a string, `a.0.b:=json` a
 * JSON value; `data[0].text` and `data.0.text` are the same path. Numeric steps make arrays,
 * with earlier items left as `{}` (the default item).
 */
export function overridesFrom(assignments: readonly string[]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const assignment of assignments) {
    const eq = assignment.indexOf('=');
    if (eq <= 0) throw new UsageError(`--set ${assignment}: expected path=value or path:=json`);
    const isJson = assignment[eq - 1] === ':';
    const path = assignment.slice(0, isJson ? eq - 1 : eq);
    const raw = assignment.slice(eq + 1);
    let value: unknown = raw;
    if (isJson) {
      try {
        value = JSON.parse(raw);
      } catch {
        throw new UsageError(`--set ${path}:= takes JSON; got ${raw}`);
      }
    }
    setPath(
      root,
      path
        .replace(/\[(\d+)\]/g, '.$1')
        .split('.')
        .filter(Boolean),
      value,
    );
  }
  return root;
}

/** The largest index a `--set` path may name: a delivery's lists are short, and each index below it is filled. */
export const MAX_SET_INDEX = 1000;

/** Path segments that would reach an object's prototype instead of a field of the delivery. */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

function setPath(root: Record<string, unknown>, steps: string[], value: unknown): void {
  if (steps.length === 0) throw new UsageError('--set needs a path before =');
  for (const step of steps) {
    if (FORBIDDEN.has(step)) throw new UsageError(`--set: "${step}" is not a field of a delivery`);
    if (/^\d+$/.test(step) && Number(step) > MAX_SET_INDEX) {
      throw new UsageError(`--set: index ${step} is past ${MAX_SET_INDEX}`);
    }
  }
  let node: Record<string, unknown> | unknown[] = root;
  steps.forEach((step, i) => {
    const last = i === steps.length - 1;
    const nextIsIndex = !last && /^\d+$/.test(steps[i + 1] as string);
    const key: string | number = Array.isArray(node) ? Number(step) : step;
    if (Array.isArray(node) && !/^\d+$/.test(step)) throw new UsageError(`--set: "${step}" is not an index`);
    if (Array.isArray(node)) for (let j = node.length; j < (key as number); j++) node[j] = {};
    const container = node as Record<string | number, unknown>;
    if (last) container[key] = value;
    else {
      const existing = container[key];
      if (typeof existing !== 'object' || existing === null) container[key] = nextIsIndex ? [] : {};
      node = container[key] as Record<string, unknown> | unknown[];
    }
  });
}
