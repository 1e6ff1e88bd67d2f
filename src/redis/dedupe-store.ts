import { randomUUID } from 'node:crypto';
import { GatewayError } from '../core/errors.js';
import { BoundedMap } from '../internal/bounded-map.js';
import { type RedisCallOptions, type RedisClientLike, RedisConnection, script } from './connection.js';
import type { ClaimResult, DedupeStore } from './contracts.js';

/** Options of {@link redisDedupeStore}. */
export interface RedisDedupeStoreOptions extends RedisCallOptions {
  /** Prefix of the Redis keys. @default 'mgsdk:dedupe:' */
  prefix?: string;
  /** Claims of this process remembered for a safe release; the oldest go first. @default 10000 */
  maxHeld?: number;
}

// A key's value: `p<token>` while claimed (the token names the claim), `d` when done without a
// reply, `d<json>` when done with the CRM reply.
const claimScript = script(
  'dedupe claim',
  `local v = redis.call('GET', KEYS[1])
if not v then
  redis.call('SET', KEYS[1], 'p' .. ARGV[1], 'PX', ARGV[2])
  return {'claimed'}
end
if string.sub(v, 1, 1) == 'p' then return {'processing'} end
return {'done', string.sub(v, 2)}
`,
);

// Marks the key done while it holds this claim, or nothing: a holder whose lease ran out never
// overwrites the claim of the attempt that took over.
const completeScript = script(
  'dedupe complete',
  `local v = redis.call('GET', KEYS[1])
if v and v ~= 'p' .. ARGV[1] and string.sub(v, 1, 1) == 'p' then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`,
);
// Deletes the key only while it still holds this claim: a release that reached Redis late never
// forgets a claim someone else made since.
const releaseScript = script(
  'dedupe release',
  `if redis.call('GET', KEYS[1]) == 'p' .. ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`,
);

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

  /** Claims `key` for `leaseMs` unless it is claimed or done; one Redis round trip, atomic. */
  async claim(key: string, leaseMs: number): Promise<ClaimResult> {
    const token = randomUUID();
    const reply = (await this.#redis
      .eval(claimScript, [this.prefix + key], [token, Math.ceil(leaseMs)])
      .catch((error: unknown) => {
        // The claim may still run late (a client queueing commands while it reconnects): this
        // release, sent after it on the same connection, takes it back.
        void this.#redis.eval(releaseScript, [this.prefix + key], [token]).catch(() => {});
        throw error;
      })) as [string, string?];
    if (reply[0] === 'claimed') {
      this.#held.set(key, token);
      return { state: 'claimed', token };
    }
    if (reply[0] === 'processing') return { state: 'processing' };
    if (!reply[1]) return { state: 'done' };
    try {
      return { state: 'done', reply: JSON.parse(reply[1]) };
    } catch (error) {
      throw new GatewayError('redisDedupeStore: a stored reply is not JSON', { cause: error });
    }
  }

  /** Marks `key` done for `ttlMs` with the reply (JSON-serialisable) a repeat gets; with a claim's token, only while that claim (or nothing) holds the key. */
  async complete(key: string, ttlMs: number, reply?: unknown, claimToken?: string): Promise<void> {
    const value = reply === undefined ? 'd' : `d${JSON.stringify(reply)}`;
    const token = claimToken ?? this.#held.get(key);
    if (claimToken === undefined || this.#held.get(key) === claimToken) this.#held.delete(key);
    if (token === undefined) {
      await this.#redis.command('SET', ['SET', this.prefix + key, value, 'PX', Math.ceil(ttlMs)]);
    } else {
      await this.#redis.eval(completeScript, [this.prefix + key], [token, value, Math.ceil(ttlMs)]);
    }
  }

  /** Forgets `key` while it holds the claim named by `claimToken` (or this process's own claim); with neither, whatever it holds. */
  async release(key: string, claimToken?: string): Promise<void> {
    const token = claimToken ?? this.#held.get(key);
    if (claimToken === undefined || this.#held.get(key) === claimToken) this.#held.delete(key);
    if (token === undefined) await this.#redis.command('DEL', ['DEL', this.prefix + key]);
    else await this.#redis.eval(releaseScript, [this.prefix + key], [token]);
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
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const hooks = new WebhookHandler({ secret, dedupe: redisDedupeStore(redis, { prefix: 'crm:hooks:' }) });
 * ```
 */
export function redisDedupeStore(
  redis: RedisClientLike,
  options?: RedisDedupeStoreOptions,
): RedisDedupeStore {
  return new RedisDedupeStore(redis, options);
}
