import { checkCount, MAX_TIMER_MS } from '../core/checks.js';
import {
  GatewayApiError,
  GatewayConnectionError,
  GatewayError,
  GatewayTimeoutError,
  RateLimitError,
} from '../core/errors.js';
import { NEVER_SENT_CODES } from '../core/retry-policy.js';
import type { SendMessageParams } from '../schemas/messages.js';
import type { Database } from './driver.js';
import { consoleErrors, type LoopErrorHandler, PollLoops } from './poll-loops.js';
import type { Tables } from './schema.js';

/** What the relay needs of a `GatewayClient`: `messages.send`. */
export interface SendingClient {
  messages: {
    send(params: SendMessageParams, options?: { signal?: AbortSignal }): PromiseLike<{ request_id: string }>;
  };
}

/** Options of `store.outbox.relay`. */
export interface OutboxRelayOptions {
  /** Rows sent at once by this relay (the client's rate limiter still decides when each starts). @default 1 */
  concurrency?: number;
  /** How often an idle relay looks for rows (ms). @default 200 */
  pollIntervalMs?: number;
  /**
   * How long a send may take, the wait in the rate limiter included (ms): a send still running
   * then is aborted, and a row `sending` longer than this (its relay died) becomes `unknown`.
   * @default 300000 (5 minutes)
   */
  leaseMs?: number;
  /**
   * Called with each row left `unknown` (its message names the row id) and each database failure.
   * @default a console warning, at most 10 lines a minute
   */
  onError?: LoopErrorHandler;
}

/** A running relay: `await relay.stop()` lets the sends under way finish, then stops. */
export interface OutboxRelay {
  /** Stops taking rows; resolves when the sends under way have ended and been recorded. */
  stop(): Promise<void>;
}

const UNKNOWN = 'the relay stopped while sending it: it may or may not have been sent, and is not sent again';

/** Starts the loops of a relay; see `PostgresOutbox.relay`. */
export function startRelay(
  db: Database,
  t: Tables,
  client: SendingClient,
  options: OutboxRelayOptions,
): OutboxRelay {
  const what = 'outbox.relay options';
  const concurrency = checkCount(options.concurrency ?? 1, ['concurrency'], what, 1);
  const pollIntervalMs = checkCount(options.pollIntervalMs ?? 200, ['pollIntervalMs'], what, 1, MAX_TIMER_MS);
  const leaseMs = checkCount(options.leaseMs ?? 300_000, ['leaseMs'], what, 1_000);
  const onError = options.onError ?? consoleErrors('outbox.relay');
  const step = async () => {
    if (await sendOne(db, t, client, leaseMs, onError)) return true;
    await sweep(db, t, onError); // when idle: rows whose relay died mid-send
    return false;
  };
  return new PollLoops(concurrency, pollIntervalMs, step, onError);
}

/** Rows `sending` past their lease (their relay died mid-send) become `unknown`, each reported. */
async function sweep(db: Database, t: Tables, onError: LoopErrorHandler): Promise<void> {
  const rows = await db.query(
    `UPDATE ${t.outbox} SET status = 'unknown', reason = $1, updated_at = now()
     WHERE status = 'sending' AND lease_until < now() RETURNING id::text AS id`,
    [UNKNOWN],
  );
  for (const row of rows) onError(new GatewayError(`Outbox row ${String(row.id)} is unknown: ${UNKNOWN}`));
}

/**
 * Takes the oldest pending row (marked `sending` in its own commit before the send, so a crash
 * mid-send never sends it twice), sends it, and records the answer. False when none was pending.
 */
async function sendOne(
  db: Database,
  t: Tables,
  client: SendingClient,
  leaseMs: number,
  onError: LoopErrorHandler,
): Promise<boolean> {
  const [row] = await db.query(
    `UPDATE ${t.outbox} SET status = 'sending', lease_until = now() + $1::float8 * interval '1 millisecond', updated_at = now()
     WHERE id = (SELECT id FROM ${t.outbox} WHERE status = 'pending' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
     RETURNING id::text AS id, params`,
    [leaseMs],
  );
  if (!row) return false;
  const id = String(row.id);
  try {
    const sent = await client.messages.send(row.params as SendMessageParams, {
      signal: AbortSignal.timeout(leaseMs - 500),
    });
    await accepted(db, t, id, sent.request_id);
  } catch (error) {
    const status = await refused(db, t, id, error);
    if (status === 'unknown')
      onError(new GatewayError(`Outbox row ${id} is unknown: the send failed mid-way`, { cause: error }));
    if (status === 'pending') {
      onError(new GatewayError(`Outbox row ${id} was not sent; it stays pending`, { cause: error }));
      return false; // the service is out of reach: wait pollIntervalMs before the next row
    }
  }
  return true;
}

/** The service took it: its request id, and any status that reached the handler before this answer. */
async function accepted(db: Database, t: Tables, id: string, requestId: string): Promise<void> {
  await db.query(
    `UPDATE ${t.outbox} o SET request_id = $2, sent_at = now(), updated_at = now(), lease_until = NULL,
       status = coalesce((SELECT CASE WHEN s.failed IS NOT NULL THEN 'failed' ELSE s.best->>'status' END
                          FROM ${t.statuses} s WHERE s.request_id = $2), 'accepted'),
       reason = (SELECT s.failed->>'reason' FROM ${t.statuses} s WHERE s.request_id = $2)
     WHERE o.id = $1::bigint`,
    [id, requestId],
  );
}

/** Whether the send surely never reached the service: a 429, a connection never made, a wait in the rate limiter. */
function neverSent(error: unknown): boolean {
  if (error instanceof RateLimitError) return true;
  if (error instanceof GatewayConnectionError)
    return error.errorCode !== undefined && NEVER_SENT_CODES.has(error.errorCode);
  return error instanceof GatewayTimeoutError && error.queued;
}

/**
 * A send that failed: refused by the service (4xx: `failed`, its code as the reason), surely never
 * sent (a 429 or a connection never made, after the client's retries: `pending` again), or of
 * unknown fate (`unknown`).
 */
async function refused(db: Database, t: Tables, id: string, error: unknown): Promise<string> {
  const tooMany = neverSent(error);
  const rejected =
    error instanceof GatewayApiError && error.status >= 400 && error.status < 500 && error.status !== 408;
  const status = tooMany ? 'pending' : rejected ? 'failed' : 'unknown';
  const reason = tooMany ? null : rejected ? String(error.code ?? `http_${error.status}`) : UNKNOWN;
  await db.query(
    `UPDATE ${t.outbox} SET status = $2, reason = $3, lease_until = NULL, updated_at = now() WHERE id = $1::bigint`,
    [id, status, reason],
  );
  return status;
}
