import { type ChatFacts, CONVERSATION_MS } from '../tracking/window-rules.js';
import type { ChannelRecord, ConversationStart, WindowStore } from '../tracking/window-store.js';
import { json } from './dedupe-store.js';
import type { Database, Row } from './driver.js';
import type { Tables } from './schema.js';

/** A time of the SDK's clock (ms, parameter `$n`) as a timestamptz. */
const time = (n: number) => `to_timestamp($${n}::float8 / 1000)`;
/** A timestamptz column as ms. */
const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8`;

const readSql = (t: Tables) => `
  SELECT c.transport, c.tier, ${ms('w.last_inbound_at')} AS inbound_ms,
    ${ms('w.conversation_at')} AS conversation_ms, ${ms('l.since')} AS since_ms
  FROM (SELECT 1 AS one) k
  LEFT JOIN ${t.windowChannels} c ON c.channel_id = $1
  LEFT JOIN ${t.windowChats} w ON w.channel_id = $1 AND w.chat_id = $2
  LEFT JOIN ${t.windowListening} l ON true`;

// A later message than the known one only; no new row version when it is not later.
const inboundSql = (t: Tables) => `
  INSERT INTO ${t.windowChats} AS w (channel_id, chat_id, last_inbound_at) VALUES ($1, $2, ${time(3)})
  ON CONFLICT (channel_id, chat_id) DO UPDATE SET last_inbound_at = EXCLUDED.last_inbound_at
  WHERE w.last_inbound_at IS NULL OR w.last_inbound_at < EXCLUDED.last_inbound_at`;

// In channel order, so that two instances keeping the same channels never wait on each other in a
// circle; a channel changes only when a record says something new of it. A stated transport
// replaces the stored one; an implied one (`implied`) is kept only where none is stored.
const channelsSql = (t: Tables, implied: boolean) => `
  INSERT INTO ${t.windowChannels} AS c (channel_id, transport, tier)
  SELECT x.channel_id, x.transport, x.tier
  FROM jsonb_to_recordset($1::text::jsonb) AS x(channel_id text, transport text, tier text)
  ORDER BY x.channel_id
  ON CONFLICT (channel_id) DO UPDATE SET
    transport = ${implied ? 'coalesce(c.transport, EXCLUDED.transport)' : 'coalesce(EXCLUDED.transport, c.transport)'},
    tier = coalesce(EXCLUDED.tier, c.tier), updated_at = now()
  WHERE ${implied ? 'c.transport IS NULL' : 'EXCLUDED.transport IS DISTINCT FROM c.transport AND EXCLUDED.transport IS NOT NULL'}
    OR EXCLUDED.tier IS DISTINCT FROM c.tier AND EXCLUDED.tier IS NOT NULL`;

const listeningSql = (t: Tables) =>
  `INSERT INTO ${t.windowListening} (since) VALUES (${time(1)}) ON CONFLICT (id) DO NOTHING`;

// $1 channel, $2 chat, $3 now, $4 now less a conversation's length, $5 cap (null: none). One
// statement: the chat's own start is exact across instances (the upsert's condition is checked
// again on the row it waits for); the channel's count is the statement's snapshot.
const startSql = (t: Tables) => `
  WITH chat AS (
    SELECT conversation_at FROM ${t.windowChats} WHERE channel_id = $1 AND chat_id = $2
  ), live AS (
    SELECT count(*)::int AS n FROM ${t.windowChats} WHERE channel_id = $1 AND conversation_at > ${time(4)}
  ), started AS (
    INSERT INTO ${t.windowChats} AS w (channel_id, chat_id, conversation_at)
    SELECT $1, $2, ${time(3)}
    WHERE NOT EXISTS (SELECT 1 FROM chat WHERE conversation_at > ${time(4)})
      AND ($5::int IS NULL OR (SELECT n FROM live) < $5::int)
    ON CONFLICT (channel_id, chat_id) DO UPDATE SET conversation_at = EXCLUDED.conversation_at
    WHERE w.conversation_at IS NULL OR w.conversation_at <= ${time(4)}
    RETURNING 1 AS one
  )
  SELECT (SELECT count(*)::int FROM started) AS started, (SELECT n FROM live) AS n,
    EXISTS (SELECT 1 FROM chat WHERE conversation_at > ${time(4)}) AS open`;

const cancelSql = (t: Tables) => `
  UPDATE ${t.windowChats} SET conversation_at = NULL
  WHERE channel_id = $1 AND chat_id = $2 AND conversation_at = ${time(3)}`;

const conversationsSql = (t: Tables) => `
  SELECT (SELECT count(*)::int FROM ${t.windowChats} WHERE channel_id = $1 AND conversation_at > ${time(2)}) AS n,
    (SELECT tier FROM ${t.windowChannels} WHERE channel_id = $1) AS tier`;

/** A channel record as the statement reads it; `implied`: a transport kept only where none is stored. */
interface ChannelRow {
  channel_id: string;
  transport?: string;
  implied?: string;
  tier?: string;
}

const numberOf = (value: unknown): number | undefined =>
  value === null || value === undefined ? undefined : Number(value);
const textOf = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/**
 * A WindowStore in the CRM's PostgreSQL; see `postgresStore(db).windows`. Every call is one
 * statement through the store's database (so every driver and ORM runs it, and inside a worker's
 * transaction it joins that transaction): a check before a send is one round trip.
 */
export class PostgresWindowStore implements WindowStore {
  readonly #db: Database;
  readonly #t: Tables;

  constructor(db: Database, tables: Tables) {
    this.#db = db;
    this.#t = tables;
  }

  async recordInbound(channelId: string, chatId: string, at: number): Promise<void> {
    await this.#db.query(inboundSql(this.#t), [channelId, chatId, at]);
  }

  async recordChannels(channels: readonly ChannelRecord[]): Promise<void> {
    // One row per channel: a statement may not change the same row twice.
    const merged = new Map<string, ChannelRow>();
    for (const { channelId, transport, impliedTransport, tier } of channels) {
      const row = merged.get(channelId) ?? { channel_id: channelId };
      merged.set(channelId, {
        ...row,
        ...(transport && { transport }),
        ...(impliedTransport && { implied: impliedTransport }),
        ...(tier && { tier }),
      });
    }
    const rows = [...merged.values()];
    const stated = rows.filter((r) => r.transport !== undefined || r.implied === undefined);
    const implied = rows
      .filter((r) => r.transport === undefined && r.implied !== undefined)
      .map(({ channel_id, implied: transport, tier }) => ({ channel_id, transport, tier }));
    if (stated.length > 0) await this.#db.query(channelsSql(this.#t, false), [json(stated)]);
    if (implied.length > 0) await this.#db.query(channelsSql(this.#t, true), [json(implied)]);
  }

  async startListening(now: number): Promise<void> {
    await this.#db.query(listeningSql(this.#t), [now]);
  }

  async read(channelId: string, chatId: string): Promise<ChatFacts> {
    const [row = {} as Row] = await this.#db.read(readSql(this.#t), [channelId, chatId]);
    return {
      transport: textOf(row.transport),
      tier: textOf(row.tier),
      lastInboundAt: numberOf(row.inbound_ms),
      conversationAt: numberOf(row.conversation_ms),
      heardSince: numberOf(row.since_ms),
    };
  }

  async startConversation(
    channelId: string,
    chatId: string,
    now: number,
    cap: number | null,
  ): Promise<ConversationStart> {
    const params = [channelId, chatId, now, now - CONVERSATION_MS, cap];
    const [row = {} as Row] = await this.#db.query(startSql(this.#t), params);
    if (Number(row.started) > 0) return { outcome: 'started', at: now };
    const full = !row.open && cap !== null && Number(row.n) >= cap;
    return { outcome: full ? 'full' : 'open' };
  }

  async cancelConversation(channelId: string, chatId: string, at: number): Promise<void> {
    await this.#db.query(cancelSql(this.#t), [channelId, chatId, at]);
  }

  async conversations(
    channelId: string,
    since: number,
  ): Promise<{ count: number; tier: string | undefined }> {
    const [row = {} as Row] = await this.#db.read(conversationsSql(this.#t), [channelId, since]);
    return { count: Number(row.n ?? 0), tier: textOf(row.tier) };
  }
}
