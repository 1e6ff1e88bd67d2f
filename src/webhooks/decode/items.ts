import type * as z from 'zod/mini';
import type { Issue } from '../../core/errors.js';
import type { RejectedItem } from '../../schemas/events-v2.js';
import { toIssues } from '../../schemas/issues.js';
import { type FastDecode, NO, UNSURE } from './fast-kit.js';

/** Most issues one delivery keeps; the rest are counted, not listed (cost bounded by input). */
export const MAX_ISSUES = 100;

/** A schema and its fast decoder, built from the same definition. */
export interface Decoder<S extends z.ZodMiniType = z.ZodMiniType> {
  schema: S;
  /** Absent: every value goes through zod (the reference path of the differential test). */
  fast?: FastDecode | undefined;
}

/**
 * The issues of one decode: at most {@link MAX_ISSUES} kept, and a count of the rejected items
 * whose issues were not listed once the budget was spent.
 */
export class IssueBudget {
  // Made at the first issue: most deliveries have none.
  #issues: Issue[] | undefined;
  /** Rejected items past the budget, whose issues are not listed. */
  omitted = 0;

  /** The issues kept so far. */
  get issues(): Issue[] {
    this.#issues ??= [];
    return this.#issues;
  }

  /** How many issues are kept. */
  get count(): number {
    return this.#issues?.length ?? 0;
  }

  get full(): boolean {
    return this.count >= MAX_ISSUES;
  }

  /** Keeps what fits of `issues`; returns what was kept. */
  keep(issues: Issue[]): Issue[] {
    const kept = issues.slice(0, MAX_ISSUES - this.count);
    const list = this.issues;
    for (const issue of kept) list.push(issue);
    return kept;
  }
}

/** The outcome of decoding one value. */
export type One<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };

/**
 * Decodes one value: the fast decoder first, zod for what it cannot decode (zod explains a
 * rejection with its issues). Once the budget is full, a value the fast decoder surely rejects is
 * not given to zod (whose issues would be dropped anyway): that is what bounds a flood of bad items.
 */
export function decodeOne<T>(
  decoder: Decoder,
  value: unknown,
  path: readonly (string | number)[],
  budget: IssueBudget,
): One<T> {
  const fast = decoder.fast ? decoder.fast(value) : UNSURE;
  if (typeof fast !== 'symbol') return { ok: true, value: fast as T }; // not NO or UNSURE (see NO)
  if (fast === NO && budget.full) {
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
  /**
   * The items that decoded. While every item so far decoded to itself (the common case) this is
   * the input list itself, not a copy: {@link Items.keep} copies it at the first item that
   * differs or is rejected. The input is the SDK's own (parsed here, or copied from the
   * caller's value), never the caller's.
   */
  good: T[];
  /**
   * Positions of the rejected items, in order: the first `badCount` entries. A typed array sized
   * for the whole list at the first rejected item, so a list of a million bad items keeps their
   * positions in 4 bytes each, with nothing for the garbage collector to trace.
   */
  private bad: Uint32Array | undefined;
  /** How many items were rejected. */
  badCount = 0;
  /** Issues kept for some of the rejected items, by position (made when the first is kept). */
  issues: Map<number, Issue[]> | undefined;

  constructor(
    readonly list: string,
    readonly items: unknown[],
  ) {
    this.good = items as T[];
  }

  /** Keeps the item at `index`, decoded to `value`. */
  keep(index: number, value: T): void {
    if (this.good === this.items) {
      if (value === this.items[index]) return;
      this.#diverge(index);
    }
    this.good.push(value);
  }

  // From `index` on, `good` is a list of its own: the items before it, as they were.
  #diverge(index: number): void {
    this.good = this.items.slice(0, index) as T[];
  }

  /**
   * The rejected items as the webhook lists them. Built only when the delivery is kept: a body
   * none of whose items decode allocates nothing per item.
   */
  rejected(): RejectedItem[] {
    const out: RejectedItem[] = [];
    for (let i = 0; i < this.badCount; i++) {
      const index = (this.bad as Uint32Array)[i] as number;
      out.push({ list: this.list, index, issues: this.issues?.get(index) ?? [], raw: this.items[index] });
    }
    return out;
  }

  /** Records the item at `index` as rejected. */
  reject(index: number): void {
    if (this.good === this.items) this.#diverge(index);
    this.bad ??= new Uint32Array(this.items.length);
    this.bad[this.badCount++] = index;
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
  const fast = decoder.fast;
  let zodOnly: Decoder | undefined; // made for the first item the fast decoder cannot decode
  // Read once, and again only after zod has added issues: a flood of bad items asks it per item.
  let full = budget.full;
  // A plain loop: no recursion and no spread, whatever the length of the list. The two cheap
  // outcomes (decoded, or surely bad once the issues are full) allocate nothing of their own.
  for (let index = 0; index < items.length; index++) {
    const raw = items[index];
    const decoded = fast ? fast(raw) : UNSURE;
    if (typeof decoded !== 'symbol') {
      out.keep(index, decoded as T);
    } else if (decoded === NO && full) {
      budget.omitted++;
      out.reject(index);
    } else {
      zodOnly ??= { schema: decoder.schema };
      const one = decodeOne<T>(zodOnly, raw, [list, index], budget);
      full = budget.full;
      if (one.ok) out.keep(index, one.value);
      else {
        out.reject(index);
        if (one.issues.length > 0) {
          out.issues ??= new Map();
          out.issues.set(index, one.issues);
        }
      }
    }
  }
  return out;
}
