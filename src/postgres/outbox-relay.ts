import { checkCount, MAX_TIMER_MS } from '../core/checks.js';
import {
  AuthenticationError,
  ConversationWindowError,
  GatewayApiError,
  GatewayError,
  GatewayValidationError,
  PermissionDeniedError,
  RateLimitError,
} from '../core/errors.js';
import { sleep } from '../internal/sleep.js';
import type { SendMessageParams } from '../schemas/messages.js';
import type { Database } from './driver.js';
import { consoleErrors, type LoopErrorHandler, PollLoops } from './poll-loops.js';
import type { Tables } from './schema.js';

/**
 * What the relay needs of a `GatewayClient`: `messages.send`. The relay asks for one attempt per
 * send (`maxRetries: 0`) and repeats a row itself, so the error it reads says what became of that
 * attempt alone.
 */
export interface SendingClient {
  messages: {
    /** Sends one message (`client.messages.send`). */
    send(
      params: SendMessageParams,
      options?: { signal?: AbortSignal; maxRetries?: number },
    ): PromiseLike<{ request_id: string }>;
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
   * Called with each row left `unknown` (its message names the row id), each row put back to
   * `pending` because its send never left, and each database failure.
   * @default a console warning, at most 10 lines a minute
   */
  onError?: LoopErrorHandler;
}

/** A running relay: `await relay.stop()` lets the sends under way finish, then stops. */
export interface OutboxRelay {
  /** Stops taking rows; resolves when the sends under way have ended and been recorded. */
  stop(): Promise<void>;
}

const STOPPED = 'the relay stopped while sending it: it may or may not have been sent, and is not sent again';
const MAY_HAVE_LEFT =
  'its request left and no answer said it was refused: it may or may not have been sent, and is not sent again';

/** The first pause after a send that never left (ms); each next one doubles, up to a minute. */
const HOLD_FIRST_MS = 1_000;
const HOLD_MAX_MS = 60_000;
/** How many times a row's record is written before it is given up (a dropped connection, a restart). */
const RECORD_ATTEMPTS = 8;
const RECORD_MAX_DELAY_MS = 5_000;

/** What the steps of one relay share. */
interface Relay {
  db: Database;
  t: Tables;
  client: SendingClient;
  leaseMs: number;
  onError: LoopErrorHandler;
  hold: Hold;
}

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
  const relay: Relay = { db, t, client, leaseMs, onError, hold: new Hold() };
  const step = async () => {
    if (!relay.hold.active() && (await sendOne(relay))) return true;
    await sweep(db, t, onError); // when idle: rows whose relay died mid-send
    return false;
  };
  return db.detached(() => new PollLoops(concurrency, pollIntervalMs, step, onError));
}

/**
 * The pause of a relay after a send that never left or was refused for the account (no token,
 * the service out of reach, a 429, a 401):
 * no row is taken until it ends, so a deploy without a token does not spin through its rows. It
 * doubles when a send taken after the last pause began fails so again (the pause did not help);
 * the other sends under way when it began fail together with the first and leave it as it is. A
 * send that left ends the doubling.
 */
class Hold {
  #ms = 0;
  #began = Number.NEGATIVE_INFINITY;
  #until = 0;

  /** Whether the relay is holding now. */
  active(): boolean {
    return performance.now() < this.#until;
  }

  /**
   * After a send taken at `takenAt` (`performance.now()`) never left: holds for the next pause,
   * unless the send was already under way when the current one began. Returns its length (ms).
   */
  start(takenAt: number): number {
    if (takenAt < this.#began) return this.#ms;
    this.#ms = Math.min(HOLD_MAX_MS, Math.max(HOLD_FIRST_MS, this.#ms * 2));
    this.#began = performance.now();
    this.#until = this.#began + this.#ms;
    return this.#ms;
  }

  /** A send left: the next pause starts again from the first. */
  reset(): void {
    this.#ms = 0;
  }
}

/** Rows `sending` past their lease (their relay died mid-send) become `unknown`, each reported. */
async function sweep(db: Database, t: Tables, onError: LoopErrorHandler): Promise<void> {
  const rows = await db.query(
    `UPDATE ${t.outbox} SET status = 'unknown', reason = $1, updated_at = now()
     WHERE status = 'sending' AND lease_until < now() RETURNING id::text AS id`,
    [STOPPED],
  );
  for (const row of rows) onError(new GatewayError(`Outbox row ${String(row.id)} is unknown: ${STOPPED}`));
}

/**
 * Takes the oldest pending row (marked `sending` in its own commit before the send, so a crash
 * mid-send never sends it twice), sends it, and records the outcome. False when none was pending,
 * or when the relay now holds.
 */
async function sendOne(relay: Relay): Promise<boolean> {
  const { db, t, client, leaseMs } = relay;
  const takenAt = performance.now();
  const [row] = await db.query(
    `UPDATE ${t.outbox} SET status = 'sending', lease_until = now() + $1::float8 * interval '1 millisecond', updated_at = now()
     WHERE id = (SELECT id FROM ${t.outbox} WHERE status = 'pending' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
     RETURNING id::text AS id, params`,
    [leaseMs],
  );
  if (!row) return false;
  const id = String(row.id);
  let requestId: string;
  try {
    // One attempt: were the client to repeat a 429 or a refused connection itself, the error of
    // its last attempt would carry `requestSent: true` from the first, and a row the service never
    // took would end `unknown`. The relay repeats it instead, after its hold.
    const options = { signal: AbortSignal.timeout(leaseMs - 500), maxRetries: 0 };
    ({ request_id: requestId } = await client.messages.send(row.params as SendMessageParams, options));
  } catch (error) {
    return failed(relay, { id, takenAt }, error);
  }
  // From here the service has the message: no failure of the database is the send's.
  relay.hold.reset();
  await record(relay, id, `the service accepted it as request_id ${requestId}`, () =>
    accepted(db, t, id, requestId),
  );
  return true;
}

/**
 * The service took it: its request id first, in a statement of its own, then any status that
 * reached the handler before this answer (statuses move the row forward once it has the id).
 */
async function accepted(db: Database, t: Tables, id: string, requestId: string): Promise<void> {
  await db.query(
    `UPDATE ${t.outbox} SET request_id = $2, status = 'accepted', reason = NULL, sent_at = now(),
       lease_until = NULL, updated_at = now()
     WHERE id = $1::bigint AND request_id IS NULL`,
    [id, requestId],
  );
  await db.query(
    `UPDATE ${t.outbox} o SET updated_at = now(),
       status = CASE WHEN s.failed IS NOT NULL THEN 'failed' ELSE coalesce(s.best->>'status', o.status) END,
       reason = coalesce(s.failed->>'reason', o.reason)
     FROM ${t.statuses} s WHERE o.id = $1::bigint AND s.request_id = o.request_id`,
    [id],
  );
}

/** What becomes of a row whose send failed. */
interface Outcome {
  status: 'pending' | 'failed' | 'unknown';
  reason: string | null;
}

/**
 * Refusals of the account, not of the message (spec: general errors): a 429, a token or key the
 * service does not take (401, one side rotated it), a route the key may not use (403). Nothing
 * of the message was done, and it can go once the account is right again.
 */
const ACCOUNT_REFUSALS = [RateLimitError, AuthenticationError, PermissionDeniedError];

/**
 * A send that failed: refused before it left by a rule of the spec (`failed`, reason
 * `invalid_request`) or by the client's conversation windows (`failed`, reason `window` or
 * `tier`), never left or
 * refused for the account (`pending` again: sent later), refused by the service (other 4xx:
 * `failed`, its code as the reason), or of unknown fate (`unknown`: it may have reached the
 * service).
 */
function outcomeOf(error: unknown): Outcome {
  // Outside its conversation window, or past the tier: the service would fail it (`window`, `tier`).
  if (error instanceof ConversationWindowError) return { status: 'failed', reason: error.code };
  if (error instanceof GatewayValidationError) return { status: 'failed', reason: 'invalid_request' };
  if (error instanceof GatewayError && !error.requestSent) return { status: 'pending', reason: null };
  if (ACCOUNT_REFUSALS.some((refusal) => error instanceof refusal))
    return { status: 'pending', reason: null };
  const refused =
    error instanceof GatewayApiError && error.status >= 400 && error.status < 500 && error.status !== 408;
  if (refused) return { status: 'failed', reason: String(error.code ?? `http_${error.status}`) };
  return { status: 'unknown', reason: MAY_HAVE_LEFT };
}

/**
 * Records a failed send; a row back to `pending` makes the relay hold (reported with the pause).
 * Returns whether the relay may take the next row at once.
 */
async function failed(relay: Relay, row: { id: string; takenAt: number }, error: unknown): Promise<boolean> {
  const { id } = row;
  const { status, reason } = outcomeOf(error);
  let pendingAgain = false;
  await record(relay, id, `its send ended ${status}`, async () => {
    // A row found past its lease meanwhile was reported `unknown`, "not sent again": the user may
    // have sent it anew, so it never goes back to `pending` (a final outcome may still replace it).
    const rows = await relay.db.query(
      `UPDATE ${relay.t.outbox} SET status = $2, reason = $3, lease_until = NULL, updated_at = now()
       WHERE id = $1::bigint AND request_id IS NULL
         AND (status = 'sending' OR (status = 'unknown' AND $2 <> 'pending'))
       RETURNING id`,
      [id, status, reason],
    );
    pendingAgain = status === 'pending' && rows.length > 0;
  });
  if (status === 'unknown') {
    relay.onError(new GatewayError(`Outbox row ${id} is unknown: ${MAY_HAVE_LEFT}`, { cause: error }));
  }
  if (status !== 'pending') return true;
  const ms = relay.hold.start(row.takenAt);
  const where = pendingAgain ? 'it stays pending' : 'it was not put back (unknown past its lease)';
  relay.onError(
    new GatewayError(`Outbox row ${id} was not sent; ${where}, and the relay holds for ${ms} ms`, {
      cause: error,
      requestSent: false,
    }),
  );
  return false;
}

/**
 * Writes what became of a row, again after a failure (a dropped connection, a restart), so that
 * what the service said of a send is not lost to one failed statement. Each failure is reported;
 * after the last one, the row stays `sending` and becomes `unknown` when its lease ends.
 */
async function record(relay: Relay, id: string, what: string, write: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await write();
      return;
    } catch (error) {
      const last = attempt === RECORD_ATTEMPTS;
      const next = last ? 'given up: the row becomes unknown when its lease ends' : 'trying again';
      relay.onError(
        new GatewayError(`Outbox row ${id}: recording that ${what} failed; ${next}`, { cause: error }),
      );
      if (last) return;
      await sleep(Math.min(RECORD_MAX_DELAY_MS, 100 * 2 ** (attempt - 1)));
    }
  }
}
