import type * as z from 'zod/mini';
import type { Issue } from '../../core/errors.js';
import type { RejectedItem } from '../../schemas/events-v2.js';
import { toIssues } from '../../schemas/issues.js';
import { type Check, NO, OK } from './check-kit.js';

/** Most issues one delivery keeps; the rest are counted, not listed (cost bounded by input). */
export const MAX_ISSUES = 100;

/** A schema and its fast check, built from the same definition. */
export interface Decoder<S extends z.ZodMiniType = z.ZodMiniType> {
  schema: S;
  /** Absent: every value goes through zod (the reference path of the differential test). */
  check?: Check | undefined;
}

/**
 * The issues of one decode: at most {@link MAX_ISSUES} kept, and a count of the rejected items
 * whose issues were not listed once the budget was spent.
 */
export class IssueBudget {
  readonly issues: Issue[] = [];
  /** Rejected items past the budget, whose issues are not listed. */
  omitted = 0;

  get full(): boolean {
    return this.issues.length >= MAX_ISSUES;
  }

  /** Keeps what fits of `issues`; returns what was kept. */
  keep(issues: Issue[]): Issue[] {
    const kept = issues.slice(0, MAX_ISSUES - this.issues.length);
    for (const issue of kept) this.issues.push(issue);
    return kept;
  }
}

/** The outcome of decoding one value. */
export type One<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };

/**
 * Decodes one value: the fast check first (OK: the value is already in decoded form), zod for
 * the rest. Once the budget is full, a value the check surely rejects is not given to zod (whose
 * issues would be dropped anyway): that is what bounds a flood of bad items.
 */
export function decodeOne<T>(
  decoder: Decoder,
  value: unknown,
  path: (string | number)[],
  budget: IssueBudget,
): One<T> {
  const verdict = decoder.check?.(value);
  if (verdict === OK) return { ok: true, value: value as T };
  if (verdict === NO && budget.full) {
    budget.omitted++;
    return { ok: false, issues: [] };
  }
  const result = decoder.schema.safeParse(value);
  if (result.success) return { ok: true, value: result.data as T };
  if (budget.full) {
    budget.omitted++;
    return { ok: false, issues: [] };
  }
  return { ok: false, issues: budget.keep(toIssues(result.error, path)) };
}

/** The items of one list: those that decoded, and the positions and issues of those that did not. */
export class Items<T> {
  readonly good: T[] = [];
  /** Positions of the rejected items, in order. */
  readonly bad: number[] = [];
  /** Issues kept for some of the rejected items, by position (made when the first is kept). */
  issues: Map<number, Issue[]> | undefined;

  constructor(
    readonly list: string,
    readonly items: unknown[],
  ) {}

  /**
   * The rejected items as the webhook lists them. Built only when the delivery is kept: a body
   * none of whose items decode allocates nothing per item.
   */
  rejected(): RejectedItem[] {
    return this.bad.map((index) => ({
      list: this.list,
      index,
      issues: this.issues?.get(index) ?? [],
      raw: this.items[index],
    }));
  }
}

/** Decodes every item of `list` on its own: one bad item never sinks the others. */
export function decodeItems<T>(
  decoder: Decoder,
  items: unknown[],
  list: string,
  budget: IssueBudget,
): Items<T> {
  const out = new Items<T>(list, items);
  const check = decoder.check;
  const zodOnly = { schema: decoder.schema };
  // A plain loop: no recursion and no spread, whatever the length of the list. The two cheap
  // outcomes (canonical, or surely bad once the issues are full) allocate nothing of their own.
  for (let index = 0; index < items.length; index++) {
    const raw = items[index];
    const verdict = check?.(raw);
    if (verdict === OK) {
      out.good.push(raw as T);
    } else if (verdict === NO && budget.full) {
      budget.omitted++;
      out.bad.push(index);
    } else {
      const one = decodeOne<T>(zodOnly, raw, [list, index], budget);
      if (one.ok) out.good.push(one.value);
      else {
        out.bad.push(index);
        if (one.issues.length > 0) {
          out.issues ??= new Map();
          out.issues.set(index, one.issues);
        }
      }
    }
  }
  return out;
}
