import { isRecord } from '../internal/is-record.js';
import { sleep } from '../internal/sleep.js';
import type { MessageStatusUpdate } from '../schemas/events-v2.js';
import type { DeliveryFeed, DeliveryStore, StatusEntry } from '../tracking/delivery-store.js';
import { rankOf } from '../tracking/status-order.js';
import { json } from './dedupe-store.js';
import type { Database, Row } from './driver.js';
import type { Tables } from './schema.js';

/**
 * How often a store that cannot LISTEN (on Prisma, Kysely or Knex, which expose no connection)
 * has its trackers read the statuses they wait for, in milliseconds.
 */
export const STATUS_POLL_MS = 1_000;

/** The channel a schema's statuses are announced on (an identifier PostgreSQL keeps whole). */
export const statusChannel = (t: Tables) => `mgsdk_status_${t.schema.slice(0, 40)}`;

/** An entry as the row (or the announcement) holds it. */
function entryOf(row: Row): StatusEntry | undefined {
  if (typeof row.r !== 'string') return undefined;
  const update = (value: unknown) =>
    isRecord(value) ? (value as unknown as MessageStatusUpdate) : undefined;
  return {
    requestId: row.r,
    messageId: typeof row.m === 'string' ? row.m : undefined,
    best: update(row.b),
    failed: update(row.f),
  };
}

// Records the status, brings the outbox row of the same request along (forward only; failed is
// final), and announces the entry, in one statement.
const recordSql = (t: Tables) => `
  WITH up AS (
    INSERT INTO ${t.statuses} AS s (request_id, message_id, rank, best, failed)
    VALUES ($1, $2, $3, $4::text::jsonb, $5::text::jsonb)
    ON CONFLICT (request_id) DO UPDATE SET
      message_id = coalesce(s.message_id, EXCLUDED.message_id),
      best = CASE WHEN EXCLUDED.rank > s.rank THEN EXCLUDED.best ELSE s.best END,
      rank = greatest(s.rank, EXCLUDED.rank),
      failed = coalesce(EXCLUDED.failed, s.failed),
      updated_at = now()
    RETURNING request_id AS r, message_id AS m, best AS b, failed AS f),
  outbox AS (
    UPDATE ${t.outbox} o SET status = $6, reason = coalesce($7, o.reason), updated_at = now()
    FROM up WHERE o.request_id = up.r AND o.status <> 'failed'
      AND ($6 = 'failed' OR coalesce(array_position(ARRAY['accepted','sent','delivered','read'], o.status), 0)
        < array_position(ARRAY['accepted','sent','delivered','read'], $6::text))
    RETURNING o.id),
  entry AS (SELECT json_build_object('r', r, 'm', m, 'b', b, 'f', f)::text AS entry, r, m, b, f FROM up)
  SELECT r, m, b, f, length(pg_notify($8, entry)::text) AS notified FROM entry`;

/**
 * A DeliveryStore in the CRM's PostgreSQL; see `postgresStore(db).deliveries`. Statuses are rows
 * of `statuses` (only moving forward; failed kept beside them), announced with NOTIFY, so a
 * `waitFor` on any instance resolves; the outbox row of the same send follows them.
 */
export class PostgresDeliveryStore implements DeliveryStore {
  readonly #db: Database;
  readonly #t: Tables;
  readonly #feeds = new Set<DeliveryFeed>();
  #listening: Promise<() => Promise<void>> | undefined;

  constructor(db: Database, tables: Tables) {
    this.#db = db;
    this.#t = tables;
  }

  /** Records an update; the entry after it, or undefined when it names no request and no known message. */
  async record(update: MessageStatusUpdate): Promise<StatusEntry | undefined> {
    const mid = update.message_id ?? null;
    const rid = update.request_id ?? (mid === null ? undefined : await this.#requestOf(mid));
    if (!rid) return undefined;
    const failed = update.status === 'failed';
    const rank = failed ? -1 : rankOf(update.status);
    const status = failed ? 'failed' : rank >= 0 ? update.status : null;
    const reason = failed ? String((update as { reason?: unknown }).reason ?? '') || null : null;
    const [row] = await this.#db.query(recordSql(this.#t), [
      rid,
      mid,
      rank,
      failed || rank < 0 ? null : json(update),
      failed ? json(update) : null,
      status,
      reason,
      statusChannel(this.#t),
    ]);
    return row ? entryOf(row) : undefined;
  }

  /** The entry for a request id, or for a message id once a status carried both. */
  async get(id: string): Promise<StatusEntry | undefined> {
    const [row] = await this.#db.read(
      `SELECT request_id AS r, message_id AS m, best AS b, failed AS f FROM ${this.#t.statuses}
       WHERE request_id = $1 OR message_id = $1 ORDER BY request_id = $1 DESC LIMIT 1`,
      [id],
    );
    return row ? entryOf(row) : undefined;
  }

  async #requestOf(messageId: string): Promise<string | undefined> {
    const [row] = await this.#db.query(
      `SELECT request_id FROM ${this.#t.statuses} WHERE message_id = $1 LIMIT 1`,
      [messageId],
    );
    return row ? String(row.request_id) : undefined;
  }

  /**
   * Sends every entry recorded from now on, by any instance, to `feed`; resolves once listening.
   * One LISTEN per store (one connection of a pg Pool) feeds every tracker that uses it. On a
   * database that cannot LISTEN, every tracker reads what it waits for each second.
   */
  async subscribe(feed: DeliveryFeed): Promise<void> {
    this.#feeds.add(feed);
    this.#listening ??= this.#db.canListen ? this.#listen() : this.#poll();
    try {
      await this.#listening;
    } catch (error) {
      this.#listening = undefined; // the next wait tries again
      throw error;
    }
  }

  #announced(payload: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      return; // not written by this store
    }
    const entry = isRecord(parsed) ? entryOf(parsed) : undefined;
    if (entry) for (const feed of this.#feeds) feed.entry(entry);
  }

  #listen(): Promise<() => Promise<void>> {
    return this.#db.listen(
      statusChannel(this.#t),
      (payload) => this.#announced(payload),
      () => void this.#lost(),
      () => this.#resync(),
    );
  }

  /** Every wait reads the store again: statuses announced while nobody listened were missed. */
  #resync(): void {
    for (const feed of this.#feeds) feed.resync();
  }

  /** Has every tracker read the store again each second; resolves to the function that stops it. */
  async #poll(): Promise<() => Promise<void>> {
    const timer = setInterval(() => this.#resync(), STATUS_POLL_MS);
    timer.unref?.();
    return async () => clearInterval(timer);
  }

  /**
   * The listening connection broke: listens anew at once (a tracker subscribes only once), trying
   * again every second while anyone is subscribed; then every wait reads the store again.
   */
  async #lost(): Promise<void> {
    this.#listening = undefined;
    while (this.#feeds.size > 0 && this.#listening === undefined) {
      const listening = this.#listen();
      this.#listening = listening;
      try {
        await listening; // closed meanwhile: close() took this listening and stops it, once
      } catch {
        if (this.#listening === listening) this.#listening = undefined;
        await sleep(1_000);
      }
    }
    this.#resync();
  }

  /** Stops listening (the database handle passed in stays open: it is the caller's). */
  async close(): Promise<void> {
    const listening = this.#listening;
    this.#listening = undefined;
    this.#feeds.clear();
    await (await listening?.catch(() => undefined))?.();
  }
}
