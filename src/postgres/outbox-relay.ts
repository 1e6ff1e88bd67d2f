import { checkCount, MAX_TIMER_MS } from '../core/checks.js';
import {
  ConversationWindowError,
  GatewayApiError,
  GatewayError,
  GatewayValidationError,
  RateLimitError,
} from '../core/errors.js';
import { sleep } from '../internal/sleep.js';
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
  return new PollLoops(concurrency, pollIntervalMs, step, onError);
}

/**
 * The pause of a relay after a send that never left (no token, the service out of reach, a 429):
 * no row is taken until it ends, so a deploy without a token does not spin through its rows. It
 * doubles with each such send, and a send that left ends the doubling.
 */
class Hold {
  #ms = 0;
  #until = 0;

  /** Whether the relay is holding now. */
  active(): boolean {
    return performance.now() < this.#until;
  }

  /** Holds for the next pause; returns its length (ms). */
  start(): number {
    this.#ms = Math.min(HOLD_MAX_MS, Math.max(HOLD_FIRST_MS, this.#ms * 2));
    this.#until = performance.now() + this.#ms;
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
    const signal = AbortSignal.timeout(leaseMs - 500);
    ({ request_id: requestId } = await client.messages.send(row.params as SendMessageParams, { signal }));
  } catch (error) {
    return failed(relay, id, error);
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
 * A send that failed: refused before it left by a rule of the spec (`failed`, reason
 * `invalid_request`) or by the client's conversation windows (`failed`, reason `window` or
 * `tier`), never left or held back by a 429 (`pending` again: sent later), refused by the service
 * (4xx: `failed`, its code as the reason), or of unknown fate (`unknown`: it may have reached the
 * service).
 */
function outcomeOf(error: unknown): Outcome {
  // Outside its conversation window, or past the tier: the service would fail it (`window`, `tier`).
  if (error instanceof ConversationWindowError) return { status: 'failed', reason: error.code };
  if (error instanceof GatewayValidationError) return { status: 'failed', reason: 'invalid_request' };
  if (error instanceof GatewayError && !error.requestSent) return { status: 'pending', reason: null };
  if (error instanceof RateLimitError) return { status: 'pending', reason: null };
  const refused =
    error instanceof GatewayApiError && error.status >= 400 && error.status < 500 && error.status !== 408;
  if (refused) return { status: 'failed', reason: String(error.code ?? `http_${error.status}`) };
  return { status: 'unknown', reason: MAY_HAVE_LEFT };
}

/**
 * Records a failed send; a row back to `pending` makes the relay hold (reported with the pause).
 * Returns whether the relay may take the next row at once.
 */
async function failed(relay: Relay, id: string, error: unknown): Promise<boolean> {
  const { status, reason } = outcomeOf(error);
  await record(relay, id, `its send ended ${status}`, () =>
    relay.db.query(
      `UPDATE ${relay.t.outbox} SET status = $2, reason = $3, lease_until = NULL, updated_at = now()
       WHERE id = $1::bigint AND status IN ('sending', 'unknown') AND request_id IS NULL`,
      [id, status, reason],
    ),
  );
  if (status === 'unknown') {
    relay.onError(new GatewayError(`Outbox row ${id} is unknown: ${MAY_HAVE_LEFT}`, { cause: error }));
  }
  if (status !== 'pending') return true;
  const ms = relay.hold.start();
  relay.onError(
    new GatewayError(`Outbox row ${id} was not sent; it stays pending, and the relay holds for ${ms} ms`, {
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
