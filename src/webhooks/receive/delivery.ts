import type { Claim } from './claims.js';
import type { ClaimResult } from './dedupe-store.js';
import type { KeyAction, Outcome } from './outcomes.js';
import type { ReportContext } from './reporting.js';

/** How a delivery ended: a row of the outcome table, and a CRM reply when there is one. */
export interface Ending {
  outcome: Outcome;
  reply?: unknown;
}

/** A delivery's key, for the dedupe store to hold in a transaction of its own while `process` runs in it. */
export interface TransactionKey {
  key: string;
  /** Runs `process` in the store's transaction holding the key (see `Claims.inTransaction`). */
  inTransaction(process: (tx: unknown) => Promise<unknown>): Promise<ClaimResult>;
}

/**
 * What the claim step holds for a delivery, and the next steps take: a claim on its key in the
 * dedupe store (with the CRM reply an earlier attempt kept, if any: the responder ran already);
 * its key, for the store to hold in a transaction of its own while the delivery is processed; or
 * nothing (no key, or dedupe off).
 */
export type Hold =
  | { kind: 'claimed'; claim: Claim; keptReply?: unknown }
  | ({ kind: 'transaction' } & TransactionKey)
  | { kind: 'none' };

/** Holds nothing. */
export const NO_HOLD: Hold = { kind: 'none' };

/** The key a hold is on, if any. */
export function keyOf(hold: Hold): string | undefined {
  if (hold.kind === 'claimed') return hold.claim.key;
  return hold.kind === 'transaction' ? hold.key : undefined;
}

/**
 * What processing a delivery produced, for the settle step: how it ended, what it holds, what
 * reports say of it, and its work going on past the answer.
 */
export interface Processed {
  ending: Ending;
  hold: Hold;
  context: ReportContext;
  /**
   * Work still running past the answer (a late responder, 'await' listeners, a queue function, a
   * transaction): it settles with what its end does to the key.
   */
  lateWork?: Promise<KeyAction> | undefined;
  /** The background dispatch: the listeners running after the answer. */
  background?: Promise<void> | undefined;
}
