import { GatewayValidationError } from '../core/errors.js';
import { toIssues } from '../schemas/issues.js';
import { type SendMessageParams, sendMessageParams } from '../schemas/messages.js';
import { json } from './dedupe-store.js';
import { type Database, sessionOf } from './driver.js';
import { checkId } from './inbox.js';
import { type OutboxRelay, type OutboxRelayOptions, type SendingClient, startRelay } from './outbox-relay.js';
import type { Tables } from './schema.js';

/** Where an outbox row stands: the relay's states, then the message's own statuses. */
export type OutboxStatus =
  | 'pending'
  | 'sending'
  | 'unknown'
  | 'accepted'
  | 'sent'
  | 'delivered'
  | 'read'
  | 'failed';

/** One outbox row, as `store.outbox.get(id)` reads it. */
export interface OutboxRow {
  /** The row's id, as `send` returned it. */
  id: string;
  /**
   * `pending` until the relay takes it (and again when its send never left this process: no
   * token, the service out of reach, the rate limiter's wait; or was refused for the account: a
   * 429, a 401, a 403), `sending` while it does,
   * `unknown` when it may or may not have been sent (the relay stopped mid-send, or the request
   * left and no answer came): it is never sent again on its own; then the message's statuses as
   * they reach the handler: `accepted`, `sent`, `delivered`, `read`, `failed`.
   */
  status: OutboxStatus;
  /** The service's request id, once sent. */
  request_id: string | null;
  /**
   * Why it failed (the spec's reason, the refusal's code, `invalid_request`, or `window` / `tier`
   * when the client's conversation windows refused it), or why it is unknown.
   */
  reason: string | null;
  /** When `send` wrote it. */
  created_at: Date;
  /** When the service accepted it. */
  sent_at: Date | null;
}

/**
 * The transactional outbox; see `postgresStore(db).outbox`: `send` writes a message in the
 * caller's transaction, `relay` sends what was committed, at most once per row.
 */
export class PostgresOutbox {
  readonly #db: Database;
  readonly #t: Tables;

  constructor(db: Database, tables: Tables) {
    this.#db = db;
    this.#t = tables;
  }

  /**
   * Writes a send into the caller's transaction `tx` (the driver's own handle): nothing is sent
   * unless it commits. Resolves to the row's id.
   * @throws GatewayValidationError when `params` break a rule of the spec (thrown inside the
   * caller's transaction, before anything is written)
   */
  async send(tx: unknown, params: SendMessageParams): Promise<string> {
    const checked = sendMessageParams.safeParse(params);
    if (!checked.success) throw new GatewayValidationError(toIssues(checked.error), 'message');
    const [row] = await sessionOf(tx).query(
      `INSERT INTO ${this.#t.outbox} (params) VALUES ($1::text::jsonb) RETURNING id::text AS id`,
      [json(params)],
    );
    return String(row?.id);
  }

  /**
   * Sends committed rows through `client` (and its rate limiter), `concurrency` at a time, in
   * this process (run it in as many as you like), one attempt per send: a row whose send never
   * left, or got a 429, is repeated by the relay, not by the client. `await relay.stop()` at
   * shutdown.
   */
  relay(client: SendingClient, options: OutboxRelayOptions = {}): OutboxRelay {
    return startRelay(this.#db, this.#t, client, options);
  }

  /** A row as it stands, or undefined when there is none with this id. */
  async get(id: string): Promise<OutboxRow | undefined> {
    const [row] = await this.#db.query(
      `SELECT id::text AS id, status, request_id, reason,
         (extract(epoch FROM created_at) * 1000)::float8 AS created_ms,
         (extract(epoch FROM sent_at) * 1000)::float8 AS sent_ms
       FROM ${this.#t.outbox} WHERE id = $1::bigint`,
      [checkId(id)],
    );
    if (!row) return undefined;
    return {
      id: String(row.id),
      status: row.status as OutboxStatus,
      request_id: (row.request_id as string | null) ?? null,
      reason: (row.reason as string | null) ?? null,
      created_at: new Date(Number(row.created_ms)),
      sent_at: row.sent_ms == null ? null : new Date(Number(row.sent_ms)),
    };
  }
}
