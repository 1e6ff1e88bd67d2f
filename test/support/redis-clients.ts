import { Redis } from 'ioredis';
import { createClient } from 'redis';
import type { RedisClientLike } from '../../src/redis.js';
import { PARTS, skipWithout } from './system-parts.js';

/** The two clients every store is tested with. */
export const CLIENTS = ['ioredis', 'node-redis'] as const;
/** Which client. */
export type ClientKind = (typeof CLIENTS)[number];

/** A connected client of the given kind, and its closer. */
export async function connectClient(
  kind: ClientKind,
  url: string,
): Promise<{ redis: RedisClientLike; close: () => Promise<void> }> {
  if (kind === 'ioredis') {
    const redis = new Redis(url, { maxRetriesPerRequest: 1, retryStrategy: () => 50 });
    redis.on('error', () => {});
    await redis.ping();
    return { redis, close: async () => void redis.disconnect() };
  }
  const redis = createClient({ url, socket: { reconnectStrategy: () => 50 } });
  redis.on('error', () => {});
  await redis.connect();
  return { redis, close: async () => void redis.destroy() };
}

/**
 * Skips Redis suites on the CI pass that runs them elsewhere (SKIP_REDIS_TESTS=1), and on a
 * machine without redis-server (with one line saying how to get it; an error when
 * REQUIRE_SYSTEM_TESTS=1).
 */
export const skipRedis = skipWithout(PARTS.redis, 'SKIP_REDIS_TESTS');
