import { UsageError } from './io.js';

/** The highest array index `--set` builds: a path like `data.10000000` must not allocate millions of items. */
export const MAX_SET_INDEX = 999;

/** Segments that would reach an object's prototype instead of a field of the delivery. */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Turns `--set` arguments into an overrides object: `a.0.b=text` sets a string, `a.0.b:=json` a
 * JSON value; `data[0].text` and `data.0.text` are the same path. Numeric steps make arrays,
 * with earlier items left as `{}` (the default item). `__proto__`, `constructor` and `prototype`
 * segments and indexes above {@link MAX_SET_INDEX} are refused.
 */
export function overridesFrom(assignments: readonly string[]): Record<string, unknown> {
  return applyAssignments({}, assignments);
}

/** Applies `--set` assignments to `root` in place (a parsed body for `replay`); returns it. */
export function applyAssignments(
  root: Record<string, unknown>,
  assignments: readonly string[],
): Record<string, unknown> {
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
    const steps = path
      .replace(/\[(\d+)\]/g, '.$1')
      .split('.')
      .filter(Boolean);
    for (const step of steps) {
      if (FORBIDDEN.has(step)) throw new UsageError(`--set ${path}: the segment "${step}" is not allowed`);
      if (/^\d+$/.test(step) && Number(step) > MAX_SET_INDEX)
        throw new UsageError(`--set ${path}: index ${step} is too large (at most ${MAX_SET_INDEX})`);
    }
    setPath(root, steps, value);
  }
  return root;
}

function setPath(root: Record<string, unknown>, steps: string[], value: unknown): void {
  if (steps.length === 0) throw new UsageError('--set needs a path before =');
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
      const existing = Object.hasOwn(container, key) ? container[key] : undefined;
      if (typeof existing !== 'object' || existing === null) container[key] = nextIsIndex ? [] : {};
      node = container[key] as Record<string, unknown> | unknown[];
    }
  });
}
