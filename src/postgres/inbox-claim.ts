import type { Webhook } from '../webhooks/decode/parse.js';
import type { Database, Row, SqlSession } from './driver.js';
import type { Tables } from './schema.js';
import { boundsParams, boundsSql } from './transaction-bounds.js';

/** A delivery claimed for an attempt; `attempts` counts this one. */
export interface Taken {
  id: string;
  webhook: Webhook;
  url: string;
  attempts: number;
  /** Its `last_error` before this attempt. */
  before: string | null;
}

/**
 * `values` as a PostgreSQL array literal, a text parameter every driver sends as it is: postgres.js
 * writes a JavaScript array parameter from the array types it fetches on each new connection, which
 * `fetch_types: false` turns off.
 */
export const arrayLiteral = (values: readonly (string | null)[]): string =>
  `{${values.map((v) => (v === null ? 'NULL' : `"${v.replace(/["\\]/g, '\\$&')}"`)).join(',')}}`;

/** What `last_error` says of an attempt under way: what stays when its worker dies in it. */
export const UNDER_WAY = 'the attempt did not end (its worker stopped or lost its connection)';

/** A claim of a batch: its token (`locked_by`), and the rows it holds until its lease ends. */
export interface Claim {
  token: string;
  taken: Taken[];
  /** Rows out of attempts that the claim made dead, to report (`before`: their last failure). */
  dead: Taken[];
}

// The oldest due deliveries no other worker holds (no row lock, no live lease), unless an earlier
// one of its chat is pending (being processed, or waiting for its next attempt): a chat's
// deliveries run in order. The claim records who holds each (`locked_by`, a token of this claim)
// and until when (`locked_until`, the lease), and counts the attempt, all in the claim's own
// commit, before any listener runs: an attempt whose process dies still counts, and its row is
// taken again when the lease ends. One out of attempts (its worker died in each) becomes dead
// here, without running again. `before` is the row's last_error until now, `UNDER_WAY` when its
// last attempt never ended. Due and unheld is one condition (`greatest` skips a NULL lease), so
// the planner estimates one share of due rows, not the product of two.
const claimSql = (t: Tables) =>
  `WITH picked AS (
     SELECT id, last_error AS before FROM ${t.inbox} i
     WHERE state = 'pending' AND greatest(run_at, locked_until) <= now()
       AND (chat IS NULL OR NOT EXISTS (
         SELECT 1 FROM ${t.inbox} e WHERE e.chat = i.chat AND e.state = 'pending' AND e.id < i.id))
     ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
   UPDATE ${t.inbox} AS u SET
     attempts = u.attempts + CASE WHEN u.attempts >= $2 THEN 0 ELSE 1 END,
     state = CASE WHEN u.attempts >= $2 THEN 'dead' ELSE 'pending' END,
     last_error = CASE WHEN u.attempts >= $2 THEN u.last_error ELSE $3 END,
     locked_by = CASE WHEN u.attempts >= $2 THEN NULL ELSE $4 END,
     locked_until = CASE WHEN u.attempts >= $2 THEN NULL
       ELSE now() + $5::float8 * interval '1 millisecond' END
   FROM picked WHERE u.id = picked.id
   RETURNING u.id::text AS id, u.webhook, u.webhook_text, u.url, u.attempts, u.state, picked.before`;

const asTaken = (row: Row): Taken => ({
  id: String(row.id),
  webhook: (row.webhook ?? JSON.parse(String(row.webhook_text))) as Webhook,
  url: String(row.url ?? ''),
  attempts: Number(row.attempts),
  before: (row.before as string | null) ?? null,
});

/**
 * The claim's transaction settings: no sort, and the bounds of a transaction that holds claimed
 * rows locked until its commit (a process frozen before it would otherwise keep them from every
 * worker). Without a sort the planner reads inbox_pending, which is in the claim's order: on a
 * new inbox, whose table has no statistics yet, it believes a few dozen rows are pending and
 * would rather sort every pending row for each claim, so that each claim of a backlog costs as
 * much as the whole backlog. `is_local`: the settings end with the claim's transaction.
 */
const CLAIM_SETTINGS_SQL = `SELECT set_config('enable_sort', 'off', true) AS enable_sort, ${boundsSql(1)}`;

/**
 * Claims up to `batchSize` due deliveries for `leaseMs`, in the order they were received, in a
 * transaction of its own that commits before any listener runs.
 */
export async function claimBatch(
  db: Database,
  t: Tables,
  limits: { batchSize: number; maxAttempts: number; leaseMs: number },
): Promise<Claim> {
  const token = crypto.randomUUID();
  const params = [limits.batchSize, limits.maxAttempts, UNDER_WAY, token, limits.leaseMs];
  const rows = await db.transaction(async (tx) => {
    await tx.query(CLAIM_SETTINGS_SQL, boundsParams(limits.leaseMs));
    return tx.query(claimSql(t), params);
  });
  const claim: Claim = { token, taken: [], dead: [] };
  for (const row of rows) {
    (row.state === 'dead' ? claim.dead : claim.taken).push(asTaken(row));
  }
  claim.taken.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  return claim;
}

/**
 * Gives claimed rows back, due at once, their attempt uncounted: they neither ran nor failed. A
 * row the claim no longer holds (its lease ended and another worker claimed it) is left alone.
 */
const giveBackSql = (t: Tables) =>
  `UPDATE ${t.inbox} AS u SET attempts = u.attempts - 1, run_at = now(), last_error = r.before,
     locked_by = NULL, locked_until = NULL
   FROM unnest($1::bigint[], $2::text[]) AS r(id, before)
   WHERE u.id = r.id AND u.state = 'pending' AND u.locked_by = $3`;

/** Gives `rows` of the claim `token` back (see giveBackSql). */
export async function giveBack(session: SqlSession, t: Tables, token: string, rows: Taken[]): Promise<void> {
  if (rows.length === 0) return;
  const ids = arrayLiteral(rows.map((r) => r.id));
  await session.query(giveBackSql(t), [ids, arrayLiteral(rows.map((r) => r.before)), token]);
}

/**
 * The rows of a claim to run now. A row whose last attempt never ended (its process died in it,
 * maybe because of it) runs alone, so a delivery that kills its worker takes no other down with
 * it more than once; the rest are given back.
 */
export async function alone(db: SqlSession, t: Tables, claim: Claim): Promise<Taken[]> {
  const { taken } = claim;
  const suspect = taken.find((row) => row.before === UNDER_WAY);
  if (!suspect || taken.length === 1) return taken;
  await giveBack(
    db,
    t,
    claim.token,
    taken.filter((row) => row !== suspect),
  );
  return [suspect];
}
