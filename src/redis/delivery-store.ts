import { GatewayError } from '../core/errors.js';
import { ConsoleReporter } from '../internal/console-reporter.js';
import { isRecord } from '../internal/is-record.js';
import type { MessageStatusUpdate } from '../schemas/events-v2.js';
import type { DeliveryFeed, DeliveryStore, StatusEntry } from '../tracking/delivery-store.js';
import { rankOf } from '../tracking/status-order.js';
import { type RedisCallOptions, type RedisClientLike, RedisConnection, script } from './connection.js';
import { LUA } from './lua-sources.js';

/** Options of {@link redisDeliveryStore}. */
export interface RedisDeliveryStoreOptions extends RedisCallOptions {
  /** Prefix of the Redis keys and of the channel statuses are published on. @default 'mgsdk:delivery:' */
  prefix?: string;
  /** How long a message's statuses are kept after its first status (ms). @default 600000 (10 minutes) */
  retainMs?: number;
  /**
   * Called with each message on the status channel that this SDK did not write (another program
   * publishing there, or garbage): it is ignored, never thrown inside the Redis client's listener.
   * @default a console warning, at most 10 lines a minute (the rest counted)
   */
  onError?: (error: GatewayError) => void;
}

// Keys: <prefix>r:{<request id>}, a hash, and <prefix>m:{<message id>}, the message's pointer to
// its request. Each key has the id as its hash tag, and each script touches only the hash it
// declares, so on a Redis Cluster no script reaches a key of another slot
// (src/redis/scripts/delivery-*.lua name every key and argument).
const recordScript = script('delivery record', LUA['delivery-record']);
const getScript = script('delivery get', LUA['delivery-get']);

function parseEntry(json: unknown): StatusEntry | undefined {
  if (typeof json !== 'string') return undefined;
  const raw = JSON.parse(json) as { r: string; m?: string; b?: string; f?: string };
  return {
    requestId: raw.r,
    messageId: raw.m,
    best: raw.b === undefined ? undefined : (JSON.parse(raw.b) as MessageStatusUpdate),
    failed: raw.f === undefined ? undefined : (JSON.parse(raw.f) as MessageStatusUpdate),
  };
}

const isUpdate = (value: unknown): boolean =>
  value === undefined || (isRecord(value) && typeof value.status === 'string');

/** An entry published on the status channel, or undefined when the SDK did not write it. */
function parsePublished(message: string): StatusEntry | undefined {
  let entry: StatusEntry | undefined;
  try {
    entry = parseEntry(message);
  } catch {
    return undefined;
  }
  const valid =
    isRecord(entry) &&
    typeof entry.requestId === 'string' &&
    (entry.messageId === undefined || typeof entry.messageId === 'string') &&
    isUpdate(entry.best) &&
    isUpdate(entry.failed);
  return valid ? entry : undefined;
}

/**
 * A DeliveryStore on Redis; see {@link redisDeliveryStore}. One subscription per store, on a
 * connection of its own, feeds every tracker that uses it.
 */
export class RedisDeliveryStore implements DeliveryStore {
  readonly prefix: string;
  readonly retainMs: number;
  readonly #redis: RedisConnection;
  readonly #feeds = new Set<DeliveryFeed>();
  readonly #onError: (error: GatewayError) => void;
  #subscribed: Promise<() => void> | undefined;

  constructor(redis: RedisClientLike, options: RedisDeliveryStoreOptions = {}) {
    this.prefix = options.prefix ?? 'mgsdk:delivery:';
    this.retainMs = options.retainMs ?? 600_000;
    this.#redis = new RedisConnection(redis, options);
    const reporter = new ConsoleReporter(
      (line) => console.warn(line),
      'pass onError to redisDeliveryStore to see every one',
    );
    this.#onError =
      options.onError ?? ((error) => reporter.report(`[messaging-gateway-sdk] ${error.message}`));
  }

  /** Stores an update (statuses only move forward) and publishes the entry to every instance. */
  async record(update: MessageStatusUpdate): Promise<StatusEntry | undefined> {
    const mid = update.message_id ?? '';
    let rid = update.request_id ?? '';
    if (rid === '') {
      // Only the message named: its request is known once a status carried both.
      rid = mid === '' ? '' : ((await this.#requestOf(mid)) ?? '');
      if (rid === '') return undefined;
    } else if (mid !== '') {
      // The pointer first, so a wait by message id that reads after the status was published finds it.
      await this.#redis.command('delivery record', [
        'SET',
        this.#messageKey(mid),
        rid,
        'PX',
        this.retainMs,
        'NX',
      ]);
    }
    const rank = update.status === 'failed' ? -2 : rankOf(update.status);
    const args = [this.retainMs, rank, JSON.stringify(update), rid, mid, `${this.prefix}status`];
    return parseEntry(await this.#redis.eval(recordScript, [this.#requestKey(rid)], args));
  }

  /** The entry for a request id, or a message id once known. */
  async get(id: string): Promise<StatusEntry | undefined> {
    const entry = parseEntry(await this.#redis.eval(getScript, [this.#requestKey(id)], []));
    if (entry) return entry;
    const rid = await this.#requestOf(id);
    return rid === undefined
      ? undefined
      : parseEntry(await this.#redis.eval(getScript, [this.#requestKey(rid)], []));
  }

  #requestKey(requestId: string): string {
    return `${this.prefix}r:{${requestId}}`;
  }

  #messageKey(messageId: string): string {
    return `${this.prefix}m:{${messageId}}`;
  }

  async #requestOf(messageId: string): Promise<string | undefined> {
    const rid = await this.#redis.command('delivery get', ['GET', this.#messageKey(messageId)]);
    return typeof rid === 'string' ? rid : undefined;
  }

  /** Sends every entry recorded by any instance to `feed`; resolves once subscribed. */
  async subscribe(feed: DeliveryFeed): Promise<void> {
    this.#feeds.add(feed);
    this.#subscribed ??= this.#redis.subscribe(`${this.prefix}status`, {
      message: (message) => {
        const entry = parsePublished(message);
        if (entry) for (const each of this.#feeds) each.entry(entry);
        else this.#ignored(message);
      },
      resync: () => {
        for (const each of this.#feeds) each.resync();
      },
    });
    try {
      await this.#subscribed;
    } catch (error) {
      this.#subscribed = undefined; // the next wait tries again
      throw error;
    }
  }

  // Never the message itself in the report: it may carry anything.
  #ignored(message: string): void {
    const error = new GatewayError(
      `redisDeliveryStore ignored a message of ${message.length} characters on ${this.prefix}status ` +
        'that it did not write (another program publishes on this channel: give the store its own prefix)',
    );
    try {
      this.#onError(error);
    } catch {
      // a throwing onError must not throw inside the Redis client's listener either
    }
  }

  /** Closes the subscription's connection (the client passed in stays open: it is the caller's). */
  async close(): Promise<void> {
    const subscribed = this.#subscribed;
    this.#subscribed = undefined;
    this.#feeds.clear();
    (await subscribed?.catch(() => undefined))?.();
  }
}

/**
 * Delivery tracking shared by a fleet: statuses are stored in Redis (only moving forward in the
 * order accepted < sent < delivered < read; failed is final; each message kept `retainMs` after
 * its first status) and published, so a `waitFor` on one instance resolves when the status
 * reaches any instance, whether it came before or during the wait. Call `close()` at shutdown.
 * @example
 * ```ts
 * import Redis from 'ioredis';
 * import { DeliveryTracker } from 'messaging-gateway-sdk';
 * import { redisDeliveryStore } from 'messaging-gateway-sdk/redis';
 *
 * const redis = new Redis(process.env.REDIS_URL).on('error', (error) => console.warn('redis', error.message));
 * const store = redisDeliveryStore(redis, { retainMs: 3_600_000 });
 * const tracker = new DeliveryTracker({ store }).attach(hooks);
 * await tracker.waitFor(request_id, { until: 'delivered' });
 * ```
 */
export function redisDeliveryStore(
  redis: RedisClientLike,
  options?: RedisDeliveryStoreOptions,
): RedisDeliveryStore {
  return new RedisDeliveryStore(redis, options);
}
