/**
 * Spec (POST /v2/webhooks): "crm_entities.deal_add works only when crm_entities.contact_add is
 * also subscribed." The rule is about the account, not one request, so every write that can
 * break it is judged against the account as it will be after the write, and `ensure` orders its
 * writes so the account never passes through a state the service refuses.
 * @module
 */
import { GatewayValidationError } from '../core/errors.js';
import type { Subscription } from '../schemas/subscriptions.js';

/** The event the rule depends on. */
export const CONTACT = 'crm_entities.contact_add';
/** The event the rule constrains. */
export const DEAL = 'crm_entities.deal_add';

type Sub = Pick<Subscription, 'id' | 'url' | 'event'>;

/** One write to the account's subscriptions, as one request makes it. */
export type Write =
  | { kind: 'post'; items: { url: string; event: string }[] }
  | { kind: 'patch'; items: { id: string; url: string; event: string }[] }
  | { kind: 'delete'; ids: string[] };

/** Whether the service refuses this set of subscriptions: deal_add without contact_add. */
export function refused(state: readonly { event: string }[]): boolean {
  let deal = false;
  let contact = false;
  for (const s of state) {
    if (s.event === DEAL) deal = true;
    else if (s.event === CONTACT) contact = true;
  }
  return deal && !contact;
}

/** The account after `write` (a POST's new ids are unknown until it answers; none are needed). */
export function apply(state: readonly Sub[], write: Write): Sub[] {
  switch (write.kind) {
    case 'post':
      return [...state, ...write.items.map((i, n) => ({ id: `new-${n}`, ...i }))];
    case 'patch': {
      const changes = new Map(write.items.map((i) => [i.id, i]));
      return state.map((s) => changes.get(s.id) ?? s);
    }
    case 'delete': {
      const gone = new Set(write.ids);
      return state.filter((s) => !gone.has(s.id));
    }
  }
}

const addsDeal = (write: Write) => write.kind !== 'delete' && write.items.some((i) => i.event === DEAL);

/**
 * Whether going from `before` to `after` breaks the rule: the account ends refused and was not
 * before, or a deal_add is added to an account refused already.
 */
function breaks(before: readonly Sub[], after: readonly Sub[], writes: readonly Write[]): boolean {
  return refused(after) && (writes.some(addsDeal) || !refused(before));
}

/** Whether `write` breaks the rule on the account `before`. */
export function breaksRule(before: readonly Sub[], write: Write): boolean {
  return breaks(before, apply(before, write), [write]);
}

/** Whether every write of `writes`, made in order, keeps the rule. */
export function keepsRule(state: readonly Sub[], writes: readonly Write[]): boolean {
  let now = state;
  for (const write of writes) {
    if (breaksRule(now, write)) return false;
    now = apply(now, write);
  }
  return true;
}

/** The error of a write that would leave deal_add without contact_add; no request was made. */
export function dealRuleError(path: (string | number)[], what: string): GatewayValidationError {
  return new GatewayValidationError(
    [
      {
        path,
        message:
          'crm_entities.deal_add needs crm_entities.contact_add on the account (any url): subscribe ' +
          'contact_add first or in the same call, and remove it only after deal_add',
      },
    ],
    what,
  );
}

/** Where the rule's error points: the item adding deal_add, else the first touching contact_add. */
export function rulePath(state: readonly Sub[], write: Write): (string | number)[] {
  if (write.kind === 'delete') {
    const contacts = new Set(state.filter((s) => s.event === CONTACT).map((s) => s.id));
    return [
      Math.max(
        0,
        write.ids.findIndex((id) => contacts.has(id)),
      ),
    ];
  }
  const deal = write.items.findIndex((i) => i.event === DEAL);
  return [Math.max(0, deal), 'event'];
}

/** What `ensure` does: the writes, in an order that keeps the rule, and what stays as it is. */
export interface EnsurePlan {
  /** This url's subscriptions already as wanted. */
  kept: Subscription[];
  /** This url's other subscriptions (kept without `prune`, removed or reused with it). */
  extra: Subscription[];
  writes: Write[];
  /** Whether the account would end in a state the service refuses (then nothing is written). */
  refusedEnd: boolean;
}

/** Sorts events so that `first` comes first and `last` last, the rest in their order. */
function rank(first: string, last: string) {
  const key = (event: string) => (event === first ? 0 : event === last ? 2 : 1);
  return (a: { event: string }, b: { event: string }) => key(a.event) - key(b.event);
}

function compact(writes: (Write | false)[]): Write[] {
  return writes.filter((w): w is Write => w !== false);
}

/**
 * Plans `ensure` with the fewest writes: reuse unwanted subscriptions by PATCH, POST the rest of
 * what is missing, DELETE what is left, contact_add written first and deal_add reused or removed
 * first. Should that order still pass through a refused state, the plan is: remove deal_add, POST
 * everything missing, remove the rest, which is safe whenever the end state is.
 */
export function planEnsure(
  current: Subscription[],
  url: string,
  mine: Subscription[],
  wanted: readonly string[],
  prune: boolean,
): EnsurePlan {
  const kept: Subscription[] = [];
  const extra: Subscription[] = [];
  for (const s of mine) {
    if (wanted.includes(s.event) && !kept.some((k) => k.event === s.event)) kept.push(s);
    else extra.push(s);
  }
  const missing = wanted
    .filter((e) => !kept.some((k) => k.event === e))
    .map((event) => ({ url, event }))
    .sort(rank(CONTACT, DEAL));
  const removable = prune ? [...extra].sort(rank(DEAL, CONTACT)) : [];
  const k = Math.min(removable.length, missing.length);
  const preferred = compact([
    k > 0 && {
      kind: 'patch',
      items: missing.slice(0, k).map((m, i) => ({ ...m, id: removable[i]?.id ?? '' })),
    },
    missing.length > k && { kind: 'post', items: missing.slice(k) },
    removable.length > k && { kind: 'delete', ids: removable.slice(k).map((s) => s.id) },
  ]);
  const deals = removable.filter((s) => s.event === DEAL).map((s) => s.id);
  const others = removable.filter((s) => s.event !== DEAL).map((s) => s.id);
  const fallback = compact([
    deals.length > 0 && { kind: 'delete', ids: deals },
    missing.length > 0 && { kind: 'post', items: missing },
    others.length > 0 && { kind: 'delete', ids: others },
  ]);
  const writes = keepsRule(current, preferred) ? preferred : fallback;
  const final = writes.reduce<Sub[]>(apply, current);
  return { kept, extra, writes, refusedEnd: breaks(current, final, writes) };
}
