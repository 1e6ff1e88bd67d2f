import type { GatewayError } from '../core/errors.js';
import { LATE, within } from '../internal/deadline.js';
import { messageOf } from '../internal/message-of.js';
import type { Webhook } from '../webhooks/decode/parse.js';
import type { ListenerContext } from '../webhooks/receive/events.js';
import { reportOnHandler } from '../webhooks/receive/reporting.js';
import type { Database, Row, SqlSession } from './driver.js';
import { InboxDeliveryError } from './inbox-errors.js';
import type { LoopErrorHandler } from './poll-loops.js';
import type { Tables } from './schema.js';

/** What a worker needs of a `WebhookHandler`: its `receive`. */
export interface ReceivingHandler {
  /** Runs the listeners of one webhook; rejects when one of them failed. */
  receive(webhook: Webhook, context?: Partial<ListenerContext>): Promise<void>;
}

/** What a batch needs of the worker. */
export interface BatchParts {
  db: Database;
  t: Tables;
  hooks: ReceivingHandler;
  maxAttempts: number;
  batchSize: number;
  timeoutMs: number;
  onError: LoopErrorHandler;
}

/** A delivery taken for an attempt; `attempts` counts this one. */
interface Taken {
  id: string;
  webhook: Webhook;
  url: string;
  attempts: number;
  /** Its `last_error` before this attempt. */
  before: string | null;
}

/** An attempt that failed, and why. */
interface Failure {
  row: Taken;
  error: unknown;
}

/**
 * The wait before the next attempt once `attempts` (an SQL expression) have failed, as an SQL
 * interval: about a second, doubling, at most a minute.
 */
export const backoffAfter = (attempts: string): string =>
  `least(60000, 1000 * power(2, ${attempts} - 1)) * interval '1 millisecond'`;

/** What `last_error` says of an attempt under way: what stays when its worker dies in it. */
export const UNDER_WAY = 'the attempt did not end (its worker stopped or lost its connection)';

// The oldest due deliveries no other worker holds, unless an earlier one of its chat is pending
// (being processed, or waiting for its next attempt): a chat's deliveries run in order. Each
// attempt is counted (and its retry scheduled, as if it failed) in this statement's own commit,
// before any listener runs: an attempt whose process dies still counts. One out of attempts
// (its worker died in each) becomes dead here, without running again. `before` is the row's
// last_error until now, `UNDER_WAY` when its last attempt never ended.
const claimSql = (t: Tables) =>
  `WITH picked AS (
     SELECT id, last_error AS before FROM ${t.inbox} i
     WHERE state = 'pending' AND run_at <= now()
       AND (chat IS NULL OR NOT EXISTS (
         SELECT 1 FROM ${t.inbox} e WHERE e.chat = i.chat AND e.state = 'pending' AND e.id < i.id))
     ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
   UPDATE ${t.inbox} AS u SET
     attempts = u.attempts + CASE WHEN u.attempts >= $2 THEN 0 ELSE 1 END,
     state = CASE WHEN u.attempts >= $2 THEN 'dead' ELSE 'pending' END,
     last_error = CASE WHEN u.attempts >= $2 THEN u.last_error ELSE $3 END,
     run_at = now() + ${backoffAfter('(u.attempts + 1)')}
   FROM picked WHERE u.id = picked.id
   RETURNING u.id::text AS id, u.webhook, u.url, u.attempts, u.state, u.last_error, picked.before`;

/**
 * Gives claimed rows back, due at once, their attempt uncounted: they neither ran nor failed. A
 * row another worker claimed meanwhile (its count moved on) is left to that worker.
 */
const giveBackSql = (t: Tables) =>
  `UPDATE ${t.inbox} AS u SET attempts = u.attempts - 1, run_at = now(), last_error = r.before
   FROM unnest($1::bigint[], $2::text[], $3::int[]) AS r(id, before, attempts)
   WHERE u.id = r.id AND u.state = 'pending' AND u.attempts = r.attempts`;

async function giveBack(session: SqlSession, t: Tables, rows: Taken[]): Promise<void> {
  if (rows.length === 0) return;
  const columns = [rows.map((r) => r.id), rows.map((r) => r.before), rows.map((r) => r.attempts)];
  await session.query(giveBackSql(t), columns);
}

/**
 * The rows to run now. A row whose last attempt never ended (its process died in it, maybe
 * because of it) runs alone, so a delivery that kills its worker takes no other down with it
 * more than once; the rest are given back.
 */
async function alone(p: BatchParts, taken: Taken[]): Promise<Taken[]> {
  const suspect = taken.find((row) => row.before === UNDER_WAY);
  if (!suspect || taken.length === 1) return taken;
  await giveBack(
    p.db,
    p.t,
    taken.filter((row) => row !== suspect),
  );
  return [suspect];
}

/** Thrown out of a batch's transaction to roll it back when an attempt outlived `timeoutMs`. */
class TimedOut extends Error {
  constructor(readonly row: Taken) {
    super('timed out');
  }
}

/**
 * Claims a batch of due deliveries, then runs the listeners of each (under a savepoint of its
 * own, within `timeoutMs`) in the transaction that marks them done. An attempt past `timeoutMs`
 * rolls the whole transaction back (its connection may still be in the listener's hands), is
 * counted as failed, and the others of the batch are due again at once. False when none was due.
 */
export async function processBatch(p: BatchParts): Promise<boolean> {
  const claimed = await p.db.query(claimSql(p.t), [p.batchSize, p.maxAttempts, UNDER_WAY]);
  let taken: Taken[] = [];
  for (const row of claimed) {
    if (row.state === 'dead') reportDead(p, asTaken(row), new Error(String(row.last_error ?? UNDER_WAY)));
    else taken.push(asTaken(row));
  }
  if (taken.length === 0) return claimed.length > 0;
  taken.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  taken = await alone(p, taken);
  const failures: Failure[] = [];
  let dead: Failure[];
  try {
    dead = await p.db.transaction((tx, handle) => runBatch(p, tx, handle, taken, failures));
  } catch (error) {
    if (!(error instanceof TimedOut)) throw error;
    dead = await afterTimeOut(p, taken, failures, error.row);
  }
  for (const { row, error } of dead) reportDead(p, row, error);
  return true;
}

const asTaken = (row: Row): Taken => ({
  id: String(row.id),
  webhook: row.webhook as Webhook,
  url: String(row.url ?? ''),
  attempts: Number(row.attempts),
  before: (row.before as string | null) ?? null,
});

/** The transaction of a batch: its rows locked, each delivery's listeners run, the done marked. */
async function runBatch(
  p: BatchParts,
  tx: SqlSession,
  handle: unknown,
  taken: Taken[],
  failures: Failure[],
): Promise<Failure[]> {
  // A statement of a listener (waiting on a lock, a slow query) is cut by the server too: the
  // rollback after a time-out waits for the statement under way, and held the loop till it ended.
  await tx.query(`SET LOCAL statement_timeout = ${p.timeoutMs}`);
  // Held until the commit: no other worker takes them, however long the batch runs.
  await tx.query(`SELECT id FROM ${p.t.inbox} WHERE id = ANY($1::bigint[]) FOR UPDATE`, [
    taken.map((row) => row.id),
  ]);
  const done: string[] = [];
  for (const row of taken) {
    await tx.query('SAVEPOINT mgsdk_delivery');
    const attempt = p.hooks.receive(row.webhook, { tx: handle, url: row.url }).then(
      () => true as const,
      (error: unknown) => ({ error }),
    );
    const ended = await within(attempt, p.timeoutMs);
    if (ended === LATE) throw new TimedOut(row);
    if (ended === true) done.push(row.id);
    else {
      await tx.query('ROLLBACK TO SAVEPOINT mgsdk_delivery');
      failures.push({ row, error: ended.error });
    }
  }
  if (done.length > 0) {
    await tx.query(
      `UPDATE ${p.t.inbox} SET state = 'done', last_error = NULL, done_at = now() WHERE id = ANY($1::bigint[])`,
      [done],
    );
  }
  return recordFailures(p, tx, failures);
}

/**
 * After a batch rolled back for `late`: its attempt and those that failed before it are recorded
 * as failed; the others (done and rolled back with it, or not reached) are due again at once,
 * their attempt uncounted, since they did not fail.
 */
async function afterTimeOut(
  p: BatchParts,
  taken: Taken[],
  failures: Failure[],
  late: Taken,
): Promise<Failure[]> {
  const timedOut = new InboxDeliveryError({
    code: 'timedOut',
    deliveryId: late.id,
    attempts: late.attempts,
    timeoutMs: p.timeoutMs,
  });
  failures.push({ row: late, error: timedOut });
  const failed = new Set(failures.map((f) => f.row.id));
  const dead = await p.db.transaction(async (tx) => {
    await giveBack(
      tx,
      p.t,
      taken.filter((row) => !failed.has(row.id)),
    );
    return recordFailures(p, tx, failures);
  });
  report(p, late, timedOut);
  return dead;
}

// The backoff counted from the failure: from the claim (as the claim scheduled it, for a worker
// that dies), an attempt that ran its whole timeoutMs was due again at once and took its batch
// down on every attempt.
const failedSql = (t: Tables) =>
  `UPDATE ${t.inbox} SET state = $2, last_error = $3,
     run_at = clock_timestamp() + ${backoffAfter('attempts')}
   WHERE id = $1::bigint`;

/** Records failed attempts, each retried after its backoff; the last become dead. The dead, to report once committed. */
async function recordFailures(p: BatchParts, tx: SqlSession, failures: Failure[]): Promise<Failure[]> {
  const dead = failures.filter((f) => f.row.attempts >= p.maxAttempts);
  for (const { row, error } of failures) {
    await tx.query(failedSql(p.t), [
      row.id,
      row.attempts >= p.maxAttempts ? 'dead' : 'pending',
      messageOf(error).slice(0, 500),
    ]);
  }
  return dead;
}

/** Reports a delivery that is dead now, its last failure as the cause. */
function reportDead(p: BatchParts, row: Taken, cause: unknown): void {
  report(p, row, new InboxDeliveryError({ code: 'dead', deliveryId: row.id, attempts: row.attempts, cause }));
}

/** On the handler's 'error' when it is a `WebhookHandler`, to the worker's `onError` otherwise. */
function report(p: BatchParts, row: Taken, error: GatewayError): void {
  const context = { request: { method: 'RECEIVE', url: row.url }, webhook: row.webhook };
  if (!reportOnHandler(p.hooks, error, context, 'listener')) p.onError(error);
}
