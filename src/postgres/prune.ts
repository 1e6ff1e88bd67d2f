import { checkCount } from '../core/checks.js';
import type { Database } from './driver.js';
import type { Tables } from './schema.js';

/** Options of `store.prune`. */
export interface PruneOptions {
  /** Age (ms) past which finished rows go: done deliveries, statuses, finished sends. */
  olderThanMs: number;
  /** Rows deleted by one statement (each its own short transaction). @default 1000 */
  batchSize?: number;
}

/** The rows `store.prune` deleted, per table. */
export interface PruneResult {
  /** Idempotency keys past their time to live (`dedupeTtlMs`), whatever `olderThanMs` says. */
  dedupeKeys: number;
  /** Deliveries done for longer than `olderThanMs` (dead ones are kept). */
  inbox: number;
  /** Delivery statuses not updated for `olderThanMs`. */
  statuses: number;
  /** Sends accepted, sent, delivered, read or failed, not updated for `olderThanMs`. */
  outbox: number;
  /**
   * Chats of the conversation windows heard from, and written to first, longer ago than
   * `olderThanMs` and than 8 days (a day past the longest window: none of them can be open).
   */
  windows: number;
}

// What each table lets go: `$1` is the cut-off (`before`), and whether `olderThanMs` applies.
const FINISHED: Record<keyof PruneResult, (t: Tables) => [table: string, where: string, aged: boolean]> = {
  dedupeKeys: (t) => [t.dedupe, 'expires_at < $1', false],
  inbox: (t) => [t.inbox, `state = 'done' AND done_at < $1`, true],
  statuses: (t) => [t.statuses, 'updated_at < $1', true],
  outbox: (t) => [
    t.outbox,
    `status IN ('accepted', 'sent', 'delivered', 'read', 'failed') AND updated_at < $1`,
    true,
  ],
  windows: (t) => [
    t.windowChats,
    `greatest(last_inbound_at, conversation_at) < least($1, now() - interval '8 days')`,
    true,
  ],
};

/** The database's time `ms` ago, as the first parameter. */
const before = `(now() - $1::float8 * interval '1 millisecond')`;

/**
 * Deletes what is finished and old, `batchSize` rows per statement until none is left, so no
 * statement holds locks for long on a big table. Pending and dead deliveries, keys still live
 * and sends `pending`, `sending` or `unknown` are never deleted.
 */
export async function prune(db: Database, t: Tables, options: PruneOptions): Promise<PruneResult> {
  const olderThanMs = checkCount(options?.olderThanMs, ['olderThanMs'], 'prune options', 0);
  const batchSize = checkCount(options?.batchSize ?? 1_000, ['batchSize'], 'prune options', 1);
  const result: PruneResult = { dedupeKeys: 0, inbox: 0, statuses: 0, outbox: 0, windows: 0 };
  for (const part of Object.keys(FINISHED) as (keyof PruneResult)[]) {
    const [table, where, aged] = FINISHED[part](t);
    const statement = `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(
      SELECT ctid FROM ${table} WHERE ${where.replace('$1', before)} LIMIT $2)) RETURNING 1 AS gone`;
    for (;;) {
      const deleted = await db.query(statement, [aged ? olderThanMs : 0, batchSize]);
      result[part] += deleted.length;
      if (deleted.length < batchSize) break;
    }
  }
  return result;
}
