import type { GatewayError } from '../core/errors.js';
import { LATE, within } from '../internal/deadline.js';
import { messageOf } from '../internal/message-of.js';
import type { Webhook } from '../webhooks/decode/parse.js';
import type { ListenerContext } from '../webhooks/receive/events.js';
import { reportOnHandler } from '../webhooks/receive/reporting.js';
import type { Database, SqlSession } from './driver.js';
import {
  alone,
  arrayLiteral,
  type Claim,
  claimBatch,
  giveBack,
  type Taken,
  UNDER_WAY,
} from './inbox-claim.js';
import { InboxDeliveryError } from './inbox-errors.js';
import type { LoopErrorHandler } from './poll-loops.js';
import type { Tables } from './schema.js';
import { boundsParams, boundsSql, LEASE_MARGIN_MS } from './transaction-bounds.js';

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

/** Thrown out of a batch's transaction to roll it back when an attempt outlived `timeoutMs`. */
class TimedOut extends Error {
  constructor(readonly row: Taken) {
    super('timed out');
  }
}

/**
 * Claims a batch of due deliveries, then runs the listeners of each it still holds (under a
 * savepoint of its own, within `timeoutMs`) in the transaction that marks them done. An attempt
 * past `timeoutMs` rolls the whole transaction back (its connection may still be in the
 * listener's hands), is counted as failed, and the others of the batch are due again at once.
 * False when none was due.
 */
export async function processBatch(p: BatchParts): Promise<boolean> {
  const claim = await claimBatch(p.db, p.t, {
    batchSize: p.batchSize,
    maxAttempts: p.maxAttempts,
    leaseMs: p.timeoutMs + LEASE_MARGIN_MS,
  });
  for (const row of claim.dead) reportDead(p, row, new Error(row.before ?? UNDER_WAY));
  if (claim.taken.length === 0) return claim.dead.length > 0;
  const taken = await alone(p.db, p.t, claim);
  const failures: Failure[] = [];
  let dead: Failure[];
  try {
    dead = await p.db.transaction((tx, handle) => runBatch(p, tx, handle, claim.token, taken, failures));
  } catch (error) {
    if (!(error instanceof TimedOut)) return afterBrokenBatch(p, claim.token, taken, error);
    dead = await afterTimeOut(p, claim, taken, failures, error.row);
  }
  for (const { row, error } of dead) reportDead(p, row, error);
  return true;
}

/**
 * After a batch's transaction failed in the database (its connection dropped, the server
 * restarted): each attempt is recorded as failed, so the deliveries are tried again after their
 * backoff rather than when the claim's lease ends; when the database cannot be reached to record
 * it, the lease ends the claim. Rejects with `error`, for the worker to report.
 */
async function afterBrokenBatch(
  p: BatchParts,
  token: string,
  taken: Taken[],
  error: unknown,
): Promise<never> {
  const failures = taken.map((row) => ({ row, error }));
  const dead = await recordFailures(p, p.db, token, failures).catch(() => []);
  for (const failure of dead) reportDead(p, failure.row, failure.error);
  throw error;
}

// The rows of the claim `$2` it still holds, locked until the commit: a claim whose lease ended
// may have lost its rows to another worker (which may have finished them already), and runs none
// of those. Once locked here, no other worker takes them, however long the batch runs.
const holdSql = (t: Tables) =>
  `SELECT id::text AS id FROM ${t.inbox} WHERE id = ANY($1::bigint[]) AND state = 'pending' AND locked_by = $2
   FOR UPDATE`;

const doneSql = (t: Tables) =>
  `UPDATE ${t.inbox} SET state = 'done', last_error = NULL, done_at = now(), locked_by = NULL, locked_until = NULL
   WHERE id = ANY($1::bigint[]) AND locked_by = $2`;

/** The transaction of a batch: the rows it holds locked, each one's listeners run, the done marked. */
async function runBatch(
  p: BatchParts,
  tx: SqlSession,
  handle: unknown,
  token: string,
  taken: Taken[],
  failures: Failure[],
): Promise<Failure[]> {
  await tx.query(`SELECT ${boundsSql(1)}`, boundsParams(p.timeoutMs));
  const ids = arrayLiteral(taken.map((row) => row.id));
  const held = new Set((await tx.query(holdSql(p.t), [ids, token])).map((r) => r.id));
  const done: string[] = [];
  for (const row of taken.filter((r) => held.has(r.id))) {
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
  if (done.length > 0) await tx.query(doneSql(p.t), [arrayLiteral(done), token]);
  return recordFailures(p, tx, token, failures);
}

/**
 * After a batch rolled back for `late`: its attempt and those that failed before it are recorded
 * as failed; the others (done and rolled back with it, or not reached) are due again at once,
 * their attempt uncounted, since they did not fail. Only rows the claim still holds are touched.
 */
async function afterTimeOut(
  p: BatchParts,
  claim: Claim,
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
      claim.token,
      taken.filter((row) => !failed.has(row.id)),
    );
    return recordFailures(p, tx, claim.token, failures);
  });
  report(p, late, timedOut);
  return dead;
}

// The backoff counted from the failure: from the claim, an attempt that ran its whole timeoutMs
// was due again at once and took its batch down on every attempt.
const failedSql = (t: Tables) =>
  `UPDATE ${t.inbox} SET state = $2, last_error = $3, locked_by = NULL, locked_until = NULL,
     run_at = clock_timestamp() + ${backoffAfter('attempts')}
   WHERE id = $1::bigint AND locked_by = $4`;

/**
 * Records failed attempts of the claim `token`, each retried after its backoff; the last become
 * dead. The dead, to report once committed.
 */
async function recordFailures(
  p: BatchParts,
  tx: SqlSession,
  token: string,
  failures: Failure[],
): Promise<Failure[]> {
  const dead: Failure[] = [];
  for (const failure of failures) {
    const { row, error } = failure;
    const state = row.attempts >= p.maxAttempts ? 'dead' : 'pending';
    const recorded = await tx.query(`${failedSql(p.t)} RETURNING id`, [
      row.id,
      state,
      messageOf(error).slice(0, 500),
      token,
    ]);
    if (state === 'dead' && recorded.length > 0) dead.push(failure);
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
