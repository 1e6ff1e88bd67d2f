import { GatewayError } from '../core/errors.js';
import { messageOf } from '../internal/message-of.js';
import type { Webhook } from '../webhooks/decode/parse.js';
import type { ListenerContext } from '../webhooks/receive/events.js';
import type { Database, Row, SqlSession } from './driver.js';
import { consoleErrors, countOption, type LoopErrorHandler, PollLoops } from './poll-loops.js';
import type { Tables } from './schema.js';

/** What a worker needs of a `WebhookHandler`: its `receive`. */
export interface ReceivingHandler {
  receive(webhook: Webhook, context?: Partial<ListenerContext>): Promise<void>;
}

/** Options of `store.inbox.work`. */
export interface InboxWorkOptions {
  /** Deliveries processed at once by this worker. @default 1 */
  concurrency?: number;
  /** Attempts before a delivery is dead (kept, reported, `store.inbox.retry(id)` puts it back). @default 10 */
  maxAttempts?: number;
  /** How often an idle worker looks for deliveries (ms). @default 200 */
  pollIntervalMs?: number;
  /**
   * Deliveries taken in one transaction by each of the `concurrency` loops (at most one per chat):
   * each runs its listeners under a savepoint of its own, and they are marked done in one commit.
   * @default 10
   */
  batchSize?: number;
  /**
   * Called with each dead delivery's error (its message names the row id) and each database
   * failure. Listener failures are also reported on the handler's 'error'.
   * @default a console warning, at most 10 lines a minute
   */
  onError?: LoopErrorHandler;
}

/** A running worker: `await worker.stop()` lets the deliveries under way finish, then stops. */
export interface InboxWorker {
  /** Stops taking deliveries; resolves when those under way are done (or rolled back). */
  stop(): Promise<void>;
}

/** The wait before attempt `n + 1` after `n` failed: about a second, doubling, at most a minute. */
export function backoffMs(attempts: number): number {
  return Math.min(60_000, 1_000 * 2 ** Math.max(0, attempts - 1));
}

/** Starts the loops of a worker; see `PostgresInbox.work`. */
export function startInboxWorker(
  db: Database,
  t: Tables,
  hooks: ReceivingHandler,
  options: InboxWorkOptions,
): InboxWorker {
  const concurrency = countOption(options.concurrency, 1, 'inbox.work option concurrency');
  const maxAttempts = countOption(options.maxAttempts, 10, 'inbox.work option maxAttempts');
  const pollIntervalMs = countOption(options.pollIntervalMs, 200, 'inbox.work option pollIntervalMs');
  const batchSize = countOption(options.batchSize, 10, 'inbox.work option batchSize');
  const onError = options.onError ?? consoleErrors('inbox.work');
  const step = () => processBatch(db, t, hooks, { maxAttempts, batchSize }, onError);
  return new PollLoops(concurrency, pollIntervalMs, step, onError);
}

// The oldest due delivery no other worker holds, unless an earlier one of its chat is pending
// (being processed, or waiting for its next attempt): a chat's deliveries run in order.
const takeSql = (t: Tables) =>
  `SELECT id::text AS id, webhook, url, attempts FROM ${t.inbox} i
   WHERE state = 'pending' AND run_at <= now()
     AND (chat IS NULL OR NOT EXISTS (
       SELECT 1 FROM ${t.inbox} e WHERE e.chat = i.chat AND e.state = 'pending' AND e.id < i.id))
   ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`;

/**
 * Takes a batch of due deliveries and runs the listeners of each in the transaction that marks
 * them done. A failing listener rolls back to its delivery's savepoint, and the attempt is counted
 * in the same transaction (so no other worker takes the delivery before its backoff). False when
 * none was due; each delivery that died is reported after the commit.
 */
async function processBatch(
  db: Database,
  t: Tables,
  hooks: ReceivingHandler,
  limits: { maxAttempts: number; batchSize: number },
  onError: LoopErrorHandler,
): Promise<boolean> {
  const outcome = await db.transaction(async (tx, handle) => {
    const rows = await tx.query(takeSql(t), [limits.batchSize]);
    const done: string[] = [];
    const dead: GatewayError[] = [];
    for (const row of rows) {
      await tx.query('SAVEPOINT mgsdk_delivery');
      try {
        await hooks.receive(row.webhook as Webhook, { tx: handle, url: String(row.url ?? '') });
        done.push(String(row.id));
      } catch (error) {
        await tx.query('ROLLBACK TO SAVEPOINT mgsdk_delivery');
        const died = await failed(tx, t, row, error, limits.maxAttempts);
        if (died) dead.push(died);
      }
    }
    if (done.length > 0) {
      await tx.query(
        `UPDATE ${t.inbox} SET state = 'done', attempts = attempts + 1, done_at = now() WHERE id = ANY($1::bigint[])`,
        [done],
      );
    }
    return { found: rows.length > 0, dead };
  });
  for (const error of outcome.dead) onError(error);
  return outcome.found;
}

/** Counts a failed attempt: due again after its backoff, or dead (the error to report). */
async function failed(
  tx: SqlSession,
  t: Tables,
  row: Row,
  error: unknown,
  maxAttempts: number,
): Promise<GatewayError | undefined> {
  const attempts = Number(row.attempts) + 1;
  const isDead = attempts >= maxAttempts;
  const why = messageOf(error).slice(0, 500);
  await tx.query(
    `UPDATE ${t.inbox} SET attempts = $2, state = $3, last_error = $4,
       run_at = now() + $5::float8 * interval '1 millisecond' WHERE id = $1::bigint`,
    [row.id, attempts, isDead ? 'dead' : 'pending', why, backoffMs(attempts)],
  );
  if (!isDead) return undefined;
  return new GatewayError(
    `Inbox delivery ${String(row.id)} is dead after ${attempts} attempts (last: ${why}); store.inbox.retry('${String(row.id)}') puts it back`,
    { cause: error },
  );
}
