import { GatewayError } from '../core/errors.js';
import { isRecord } from '../internal/is-record.js';
import type { Webhook } from '../webhooks/decode/parse.js';
import type { WebhookQueue } from '../webhooks/receive/options.js';
import { json } from './dedupe-store.js';
import type { Database } from './driver.js';
import {
  type InboxWorker,
  type InboxWorkOptions,
  type ReceivingHandler,
  startInboxWorker,
} from './inbox-worker.js';
import type { Tables } from './schema.js';

/** One stored delivery, as {@link PostgresInbox.get} reads it. */
export interface InboxDelivery {
  /** The row's id. */
  id: string;
  /** `pending` (waiting or being processed), `done`, or `dead` (tried `maxAttempts` times). */
  state: 'pending' | 'done' | 'dead';
  /** Attempts made so far. */
  attempts: number;
  /** The last failure's message, when an attempt failed. */
  lastError: string | null;
}

/** The chat a delivery belongs to (its first item's), so a chat's deliveries keep their order. */
export function chatOf(webhook: Webhook): string | null {
  const w = webhook as unknown as Record<string, unknown>;
  const items = [w.data, w.messages, w.statuses].find((list) => Array.isArray(list) && list.length > 0);
  const first = (items as unknown[] | undefined)?.[0];
  if (!isRecord(first)) return null;
  const chat = first.chat_id ?? first.chatId;
  if (chat === undefined || chat === null) return null;
  return `${String(first.channel_id ?? first.channelId ?? '')}:${String(chat)}`;
}

/**
 * The transactional inbox; see `postgresStore(db).inbox`. Give it to the handler as `dispatch`:
 * each delivery is stored with its idempotency key in one statement before the 200; workers
 * (`work`) run the listeners inside the transaction that marks it done.
 */
export class PostgresInbox implements WebhookQueue {
  readonly #db: Database;
  readonly #t: Tables;

  constructor(db: Database, tables: Tables) {
    this.#db = db;
    this.#t = tables;
  }

  /** Stores `webhook` for the workers; a key stored already is not stored twice. */
  async enqueue(
    webhook: Webhook,
    delivery: { key: string | undefined; url?: string } = { key: undefined },
  ): Promise<void> {
    await this.#db.query(
      `INSERT INTO ${this.#t.inbox} (key, chat, webhook, url) VALUES ($1, $2, $3::text::jsonb, $4) ON CONFLICT (key) DO NOTHING`,
      [delivery.key ?? null, chatOf(webhook), json(webhook), delivery.url ?? ''],
    );
  }

  /**
   * Processes stored deliveries with `hooks`' listeners, `concurrency` at a time, in this process
   * (run it in as many processes as you like). Each delivery is taken with `FOR UPDATE SKIP
   * LOCKED`, its listeners get the transaction as `tx`, and it is marked done in it. `await
   * worker.stop()` at shutdown.
   */
  work(hooks: ReceivingHandler, options: InboxWorkOptions = {}): InboxWorker {
    return startInboxWorker(this.#db, this.#t, hooks, options);
  }

  /** Puts a dead delivery back (attempts from zero, due now); false when `id` is not dead. */
  async retry(id: string): Promise<boolean> {
    const rows = await this.#db.query(
      `UPDATE ${this.#t.inbox} SET state = 'pending', attempts = 0, run_at = now() WHERE id = $1::bigint AND state = 'dead' RETURNING id`,
      [checkId(id)],
    );
    return rows.length > 0;
  }

  /** A stored delivery's state, or undefined when there is no such row. */
  async get(id: string): Promise<InboxDelivery | undefined> {
    const [row] = await this.#db.query(
      `SELECT id::text AS id, state, attempts, last_error FROM ${this.#t.inbox} WHERE id = $1::bigint`,
      [checkId(id)],
    );
    if (!row) return undefined;
    return {
      id: String(row.id),
      state: row.state as InboxDelivery['state'],
      attempts: Number(row.attempts),
      lastError: (row.last_error as string | null) ?? null,
    };
  }
}

/** A row id: digits only (a typed error naming it otherwise). */
export function checkId(id: unknown): string {
  if (typeof id !== 'string' || !/^[0-9]{1,19}$/.test(id)) {
    throw new GatewayError('id must be the row id as a string of digits');
  }
  return id;
}
