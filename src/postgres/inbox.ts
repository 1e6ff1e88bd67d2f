import { GatewayError } from '../core/errors.js';
import { isRecord } from '../internal/is-record.js';
import type { Webhook } from '../webhooks/decode/parse.js';
import { DERIVED_KEY_TTL_MS } from '../webhooks/receive/claims.js';
import type { WebhookQueue } from '../webhooks/receive/options.js';
import { json, jsonbTakes } from './dedupe-store.js';
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
 * Whether `key` is one a handler derived for a CRM request that came without a key of its own
 * (`<kind>:sha256:<hex>`, see `derivedKey` of the receive pipeline). Such a key stands for one
 * request only while the handler remembers it (`DERIVED_KEY_TTL_MS`): the same body later is a
 * new request, for the inbox too.
 */
const isDerivedKey = (key: string): boolean => /^[\w.]+:sha256:[0-9a-f]{64}$/.test(key);

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

  /**
   * Stores `webhook` for the workers; a key stored already is not stored twice (a key derived
   * from a keyless CRM request, only within the time the handler remembers it). A delivery
   * jsonb refuses (a text holding U+0000) is kept as its JSON text.
   */
  async enqueue(
    webhook: Webhook,
    delivery: { key: string | undefined; url?: string } = { key: undefined },
  ): Promise<void> {
    const key = delivery.key ?? null;
    if (key !== null && isDerivedKey(key)) {
      await this.#db.query(
        `UPDATE ${this.#t.inbox} SET key = NULL
         WHERE key = $1 AND created_at <= now() - $2::float8 * interval '1 millisecond'`,
        [key, DERIVED_KEY_TTL_MS],
      );
    }
    const text = json(webhook) as string;
    const jsonb = jsonbTakes(text);
    await this.#db.query(
      `INSERT INTO ${this.#t.inbox} (key, chat, webhook, webhook_text, url)
       VALUES ($1, $2, $3::text::jsonb, $4, $5) ON CONFLICT (key) DO NOTHING`,
      [key, chatOf(webhook), jsonb ? text : null, jsonb ? null : text, delivery.url ?? ''],
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
      `UPDATE ${this.#t.inbox} SET state = 'pending', attempts = 0, run_at = now(), locked_by = NULL, locked_until = NULL
       WHERE id = $1::bigint AND state = 'dead' RETURNING id`,
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
