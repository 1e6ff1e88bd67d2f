import { randomUUID } from 'node:crypto';
import { GatewayError } from '../core/errors.js';
import { BoundedMap } from '../internal/bounded-map.js';
import { type RedisCallOptions, type RedisClientLike, RedisConnection, script } from './connection.js';
import type { ClaimResult, DedupeStore } from './contracts.js';
import { hashTag } from './hash-tag.js';
import { LUA } from './lua-sources.js';

/** Options of {@link redisDedupeStore}. */
export interface RedisDedupeStoreOptions extends RedisCallOptions {
  /** Prefix of the Redis keys. @default 'mgsdk:dedupe:' */
  prefix?: string;
  /** Claims of this process remembered for a safe release; the oldest go first. @default 10000 */
  maxHeld?: number;
}

// Two keys per delivery, one hash tag holding the whole key (hash-tag.ts) so they share a slot on
// a cluster: the claim and the CRM reply kept across a release (src/redis/scripts/dedupe-*.lua
// name every key and argument).
const claimScript = script('dedupe claim', LUA['dedupe-claim']);
const completeScript = script('dedupe complete', LUA['dedupe-complete']);
const keepReplyScript = script('dedupe keep reply', LUA['dedupe-keep-reply']);
const releaseScript = script('dedupe release', LUA['dedupe-release']);

/**
 * A DedupeStore on Redis; see {@link redisDedupeStore}. Each claim carries a random token, kept
 * here until the claim is completed or released, so a release only ever deletes its own claim.
 */
export class RedisDedupeStore implements DedupeStore {
  readonly prefix: string;
  readonly maxHeld: number;
  readonly #redis: RedisConnection;
  readonly #held: BoundedMap<string, string>;

  constructor(redis: RedisClientLike, options: RedisDedupeStoreOptions = {}) {
    this.prefix = options.prefix ?? 'mgsdk:dedupe:';
    this.#held = new BoundedMap(options.maxHeld ?? 10_000);
    this.maxHeld = this.#held.max;
    this.#redis = new RedisConnection(redis, options);
  }

  /** The Redis keys of `key`: its claim and its kept reply, one hash tag so they share a slot. */
  keysOf(key: string): [claim: string, reply: string] {
    const claim = `${this.prefix}${hashTag(key)}`;
    return [claim, `${claim}:reply`];
  }

  /** Claims `key` for `leaseMs` unless it is claimed or done; one Redis round trip, atomic. */
  async claim(key: string, leaseMs: number): Promise<ClaimResult> {
    const token = randomUUID();
    const keys = this.keysOf(key);
    // A claim that fails may still run late: the release of its token takes it back.
    const reply = (await this.#redis.evalOrUndo(claimScript, keys, [token, Math.ceil(leaseMs)], {
      script: releaseScript,
      keys: keys.slice(0, 1),
      args: [token],
    })) as [string, string?];
    if (reply[0] === 'claimed') {
      this.#held.set(key, token);
      return reply[1]
        ? { state: 'claimed', token, reply: parseReply(reply[1]) }
        : { state: 'claimed', token };
    }
    if (reply[0] === 'processing') return { state: 'processing' };
    return reply[1] ? { state: 'done', reply: parseReply(reply[1]) } : { state: 'done' };
  }

  /** Keeps the CRM reply (JSON-serialisable) of `key` for `ttlMs` across a release, unless the key is done. */
  async keepReply(key: string, reply: unknown, ttlMs: number): Promise<void> {
    await this.#redis.eval(keepReplyScript, this.keysOf(key), [JSON.stringify(reply), Math.ceil(ttlMs)]);
  }

  /** Marks `key` done for `ttlMs` with the reply (JSON-serialisable) a repeat gets; with a claim's token, only while that claim (or nothing) holds the key. */
  async complete(key: string, ttlMs: number, reply?: unknown, claimToken?: string): Promise<void> {
    const value = reply === undefined ? 'd' : `d${JSON.stringify(reply)}`;
    const token = claimToken ?? this.#held.get(key);
    if (claimToken === undefined || this.#held.get(key) === claimToken) this.#held.delete(key);
    const keys = this.keysOf(key);
    if (token === undefined) {
      await this.#redis.command('SET', ['SET', keys[0], value, 'PX', Math.ceil(ttlMs)]);
    } else {
      await this.#redis.eval(completeScript, keys, [token, value, Math.ceil(ttlMs)]);
    }
  }

  /** Forgets `key` while it holds the claim named by `claimToken` (or this process's own claim); with neither, whatever it holds. */
  async release(key: string, claimToken?: string): Promise<void> {
    const token = claimToken ?? this.#held.get(key);
    if (claimToken === undefined || this.#held.get(key) === claimToken) this.#held.delete(key);
    const [claim] = this.keysOf(key);
    if (token === undefined) await this.#redis.command('DEL', ['DEL', claim]);
    else await this.#redis.eval(releaseScript, [claim], [token]);
  }
}

/**
 * Dedupe shared by a fleet: a delivery's idempotency key is processed by exactly one instance.
 * A key is claimed for a lease (a claim whose holder died expires with it, so the service's next
 * attempt is processed), done for the handler's `dedupeTtlMs` with the CRM reply a repeat gets,
 * or forgotten. Redis unreachable: a retryable GatewayError within `timeoutMs`, so the delivery
 * is answered 5xx and the service sends it again.
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { WebhookHandler } from 'messaging-gateway-sdk/webhooks';
 * import { redisDedupeStore } from 'messaging-gateway-sdk/redis';
 *
 * // An 'error' listener, always: without one node-redis kills the process when Redis restarts.
 * const redis = await createClient({ url: process.env.REDIS_URL })
 *   .on('error', (error) => console.warn('redis', error.message))
 *   .connect();
 * const hooks = new WebhookHandler({ secret, dedupe: redisDedupeStore(redis, { prefix: 'crm:hooks:' }) });
 * ```
 */
export function redisDedupeStore(
  redis: RedisClientLike,
  options?: RedisDedupeStoreOptions,
): RedisDedupeStore {
  return new RedisDedupeStore(redis, options);
}

function parseReply(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new GatewayError('redisDedupeStore: a stored reply is not JSON', { cause: error });
  }
}
