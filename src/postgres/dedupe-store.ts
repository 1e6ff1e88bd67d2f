import { GatewayError } from '../core/errors.js';
import { LATE, within } from '../internal/deadline.js';
import type { ClaimResult, DedupeStore } from '../webhooks/receive/dedupe-store.js';
import type { Database } from './driver.js';
import type { Tables } from './schema.js';
import { boundsParams, boundsSql } from './transaction-bounds.js';

/** `now() + $n ms`, as SQL. */
const inMs = (n: number) => `now() + $${n}::float8 * interval '1 millisecond'`;
/** A JSON value as a parameter: sent as text, so no driver encodes it a second time. */
export const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));
/**
 * Whether jsonb takes this JSON text. It refuses U+0000 and a lone surrogate (half of an emoji
 * cut in two), both of which `JSON.stringify` writes as escapes (`\u0000`, `\ud83d`); a text
 * column keeps them.
 */
export const jsonbTakes = (text: string): boolean => !/\\u(0000|d[89a-f])/.test(text);

/**
 * A {@link DedupeStore} in the CRM's own PostgreSQL; see `postgresStore(db).dedupe`. Keys are rows
 * of `dedupe`: claimed for a lease, kept (released, with the CRM reply a retry must get), or done.
 * The handler processes each delivery in a transaction ({@link PostgresDedupeStore.processInTransaction})
 * that holds the key with an advisory lock, which dies with the transaction.
 */
export class PostgresDedupeStore implements DedupeStore {
  readonly #db: Database;
  readonly #t: Tables;

  constructor(db: Database, tables: Tables) {
    this.#db = db;
    this.#t = tables;
  }

  /** Claims `key` for `leaseMs` unless a live claim holds it or it is done; a kept reply comes back. */
  async claim(key: string, leaseMs: number): Promise<ClaimResult> {
    const token = crypto.randomUUID();
    const d = this.#t.dedupe;
    const [mine] = await this.#db.query(
      `INSERT INTO ${d} AS d (key, state, token, lease_until, expires_at)
       VALUES ($1, 'claimed', $2, ${inMs(3)}, ${inMs(3)})
       ON CONFLICT (key) DO UPDATE SET state = 'claimed', token = $2, lease_until = EXCLUDED.lease_until,
         expires_at = greatest(EXCLUDED.expires_at, CASE WHEN d.expires_at > now() THEN d.expires_at END),
         reply = CASE WHEN d.expires_at > now() THEN d.reply END
       WHERE d.expires_at <= now() OR d.state = 'kept' OR (d.state = 'claimed' AND d.lease_until <= now())
       RETURNING reply`,
      [key, token, leaseMs],
    );
    if (mine)
      return mine.reply == null
        ? { state: 'claimed', token }
        : { state: 'claimed', token, reply: mine.reply };
    const [row] = await this.#db.query(`SELECT state, reply FROM ${d} WHERE key = $1`, [key]);
    if (row?.state === 'done')
      return row.reply == null ? { state: 'done' } : { state: 'done', reply: row.reply };
    return { state: 'processing' };
  }

  /** Keeps the CRM reply with `key` (unless it is done) for at least `ttlMs`. */
  async keepReply(key: string, reply: unknown, ttlMs: number): Promise<void> {
    await this.#db.query(
      `INSERT INTO ${this.#t.dedupe} AS d (key, state, reply, expires_at) VALUES ($1, 'kept', $2::text::jsonb, ${inMs(3)})
       ON CONFLICT (key) DO UPDATE SET reply = EXCLUDED.reply, expires_at = greatest(d.expires_at, EXCLUDED.expires_at)
       WHERE d.state <> 'done'`,
      [key, json(reply), ttlMs],
    );
  }

  /** Marks `key` done for `ttlMs`, unless another live claim holds it. */
  async complete(key: string, ttlMs: number, reply?: unknown, token?: string): Promise<void> {
    await this.#db.query(
      `INSERT INTO ${this.#t.dedupe} AS d (key, state, reply, expires_at) VALUES ($1, 'done', $2::text::jsonb, ${inMs(3)})
       ON CONFLICT (key) DO UPDATE SET state = 'done', token = NULL, lease_until = NULL,
         reply = EXCLUDED.reply, expires_at = EXCLUDED.expires_at
       WHERE d.state <> 'claimed' OR d.lease_until <= now() OR d.token = $4::text`,
      [key, json(reply), ttlMs, token ?? null],
    );
  }

  /** Frees the claim `token` holds on `key`: forgotten, or kept when a reply is kept with it. */
  async release(key: string, token?: string): Promise<void> {
    const d = this.#t.dedupe;
    const held = `key = $1 AND state = 'claimed' AND token IS NOT DISTINCT FROM $2::text`;
    await this.#db.query(
      `WITH gone AS (DELETE FROM ${d} WHERE ${held} AND reply IS NULL RETURNING key)
       UPDATE ${d} SET state = 'kept', token = NULL, lease_until = NULL WHERE ${held} AND reply IS NOT NULL`,
      [key, token ?? null],
    );
  }

  /**
   * Runs `process` in a transaction holding `key` (a transaction-level advisory lock: it ends with
   * the transaction, also when the process dies) and marks the key done with its reply in the same
   * commit. Another attempt meanwhile gets `processing`; a key done already gets its reply. When
   * `process` has not settled within `leaseMs`, the transaction is rolled back, its `tx` fenced and
   * its connection returned, and this rejects with a retryable GatewayError: the key is free for
   * the service's next attempt. `leaseMs` also bounds each statement, and the server ends the
   * transaction if it sits idle past the lease (its process froze).
   */
  processInTransaction(
    key: string,
    process: (tx: unknown) => Promise<unknown>,
    ttlMs: number,
    leaseMs: number,
  ): Promise<ClaimResult> {
    const d = this.#t.dedupe;
    return this.#db.transaction(async (tx, handle) => {
      const [lock] = await tx.query(
        `SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS ok, ${boundsSql(2)}`,
        [`mgsdk-dedupe:${this.#t.schema}:${key}`, ...boundsParams(leaseMs)],
      );
      if (lock?.ok !== true) return { state: 'processing' };
      const [row] = await tx.query(
        `SELECT state, reply, lease_until > now() AS live FROM ${d} WHERE key = $1 AND expires_at > now()`,
        [key],
      );
      if (row?.state === 'done') return { state: 'done', reply: row.reply ?? undefined };
      if (row?.state === 'claimed' && row.live === true) return { state: 'processing' };
      const reply = await within(process(handle), leaseMs);
      if (reply === LATE) {
        throw new GatewayError(
          `The delivery's work did not end within its lease (${leaseMs} ms): its transaction was rolled back and its key freed for the next attempt`,
          { retryable: true },
        );
      }
      await tx.query(
        `INSERT INTO ${d} AS d (key, state, reply, expires_at) VALUES ($1, 'done', $2::text::jsonb, ${inMs(3)})
         ON CONFLICT (key) DO UPDATE SET state = 'done', token = NULL, lease_until = NULL,
           reply = EXCLUDED.reply, expires_at = EXCLUDED.expires_at`,
        [key, json(reply), ttlMs],
      );
      return { state: 'claimed', reply };
    });
  }
}
