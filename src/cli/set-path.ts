import { UsageError } from './io.js';

/** The highest array index `--set` builds: a path like `data.10000000` must not allocate millions of items. */
export const MAX_SET_INDEX = 999;

/**
 * The most segments a `--set` path has, and the deepest a `:=json` value nests: a delivery is a
 * few levels deep, and a body tens of thousands of levels deep overflows the call stack of
 * whatever walks it next (the builder's merge, JSON.stringify).
 */
export const MAX_SET_DEPTH = 32;

/** Segments that would reach an object's prototype instead of a field of the delivery. */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/** How deeply a JSON value nests (a scalar is 0), counted without recursion; stops past `limit`. */
function depthOf(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node !== 'object' || node === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > limit) return deepest;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** `data[0].text` → `['data', '0', 'text']`, each segment checked. */
function stepsOf(path: string): string[] {
  const steps = path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter(Boolean);
  if (steps.length === 0) throw new UsageError('--set needs a path before =');
  if (steps.length > MAX_SET_DEPTH)
    throw new UsageError(`--set: the path has ${steps.length} segments; at most ${MAX_SET_DEPTH}`);
  for (const step of steps) {
    if (FORBIDDEN.has(step)) throw new UsageError(`--set: the segment "${step}" is not allowed`);
    if (/^\d+$/.test(step) && Number(step) > MAX_SET_INDEX)
      throw new UsageError(`--set: index ${step.slice(0, 64)} is too large (at most ${MAX_SET_INDEX})`);
  }
  return steps;
}

/** The value of one assignment: the text after `=`, or the JSON after `:=`. */
function assignedValue(path: string, raw: string, isJson: boolean): unknown {
  if (!isJson) return raw;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new UsageError(`--set ${path.slice(0, 64)}:= takes JSON; got ${raw.slice(0, 64)}`);
  }
  if (depthOf(value, MAX_SET_DEPTH) > MAX_SET_DEPTH)
    throw new UsageError(`--set ${path.slice(0, 64)}:= nests more than ${MAX_SET_DEPTH} levels deep`);
  return value;
}

/**
 * Turns `--set` arguments into an overrides object: `a.0.b=text` sets a string, `a.0.b:=json` a
 * JSON value; `data[0].text` and `data.0.text` are the same path. Numeric steps make arrays,
 * with earlier items left as `{}` (the default item). `__proto__`, `constructor` and `prototype`
 * segments, indexes above {@link MAX_SET_INDEX}, and paths or values deeper than
 * {@link MAX_SET_DEPTH} are refused.
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
    if (eq <= 0) throw new UsageError(`--set ${assignment.slice(0, 64)}: expected path=value or path:=json`);
    const isJson = assignment[eq - 1] === ':';
    const path = assignment.slice(0, isJson ? eq - 1 : eq);
    const steps = stepsOf(path);
    setPath(root, steps, assignedValue(path, assignment.slice(eq + 1), isJson));
  }
  return root;
}

/** Sets `value` at `steps` under `root`, one level per turn of the loop, making what is missing. */
function setPath(root: Record<string, unknown>, steps: readonly string[], value: unknown): void {
  let node: Record<string | number, unknown> | unknown[] = root;
  for (const [i, step] of steps.entries()) {
    const isIndex = /^\d+$/.test(step);
    if (Array.isArray(node) && !isIndex) throw new UsageError(`--set: "${step}" is not an index`);
    const key: string | number = Array.isArray(node) ? Number(step) : step;
    if (Array.isArray(node)) for (let j = node.length; j < (key as number); j++) node[j] = {};
    const container = node as Record<string | number, unknown>;
    if (i === steps.length - 1) {
      container[key] = value;
      return;
    }
    const existing = Object.hasOwn(container, key) ? container[key] : undefined;
    if (typeof existing !== 'object' || existing === null)
      container[key] = /^\d+$/.test(steps[i + 1] as string) ? [] : {};
    node = container[key] as Record<string | number, unknown> | unknown[];
  }
}
