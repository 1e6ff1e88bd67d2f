import { Cluster, Redis } from 'ioredis';
import { createClient, createCluster } from 'redis';
import type { RedisClientLike } from '../../src/redis.js';
import { PARTS, skipWithout } from './system-parts.js';

/** The two clients every store is tested with. */
export const CLIENTS = ['ioredis', 'node-redis'] as const;
/** Which client. */
export type ClientKind = (typeof CLIENTS)[number];

/** A connected client of the given kind, and its closer; `url` lists a cluster's nodes separated by commas. */
export async function connectClient(
  kind: ClientKind,
  url: string,
): Promise<{ redis: RedisClientLike; close: () => Promise<void> }> {
  if (url.includes(',')) return connectCluster(kind, url.split(','));
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

/** A connected cluster client of the given kind (ioredis `Cluster`, node-redis `createCluster`), and its closer. */
export async function connectCluster(
  kind: ClientKind,
  urls: string[],
): Promise<{ redis: RedisClientLike; close: () => Promise<void> }> {
  // The user of the first URL (an ACL user) for every node, as a cluster of one ACL is used.
  const first = new URL(urls[0] as string);
  const auth = first.username
    ? { username: decodeURIComponent(first.username), password: decodeURIComponent(first.password) }
    : {};
  if (kind === 'ioredis') {
    const nodes = urls.map((url) => ({ host: '127.0.0.1', port: Number(new URL(url).port) }));
    const redis = new Cluster(nodes, {
      redisOptions: { maxRetriesPerRequest: 1, ...auth },
      clusterRetryStrategy: () => 100,
    });
    redis.on('error', () => {});
    await redis.ping();
    return { redis, close: async () => void redis.disconnect() };
  }
  const redis = createCluster({
    rootNodes: urls.map((url) => ({ url })),
    defaults: { ...auth, socket: { reconnectStrategy: () => 100 } },
  });
  redis.on('error', () => {});
  await redis.connect();
  return { redis, close: async () => void redis.destroy() };
}

/** Sends one raw command whose first key (if any) is `args[1]`, through any client kind. */
export function sendRaw(redis: RedisClientLike, args: string[]): Promise<unknown> {
  if ('call' in redis) return redis.call(args[0] as string, ...args.slice(1));
  if ('masters' in redis) return redis.sendCommand(args[1], false, args);
  return redis.sendCommand(args);
}

/**
 * Skips Redis suites on the CI pass that runs them elsewhere (SKIP_REDIS_TESTS=1), and on a
 * machine without redis-server (with one line saying how to get it; an error when
 * REQUIRE_SYSTEM_TESTS=1).
 */
export const skipRedis = skipWithout(PARTS.redis, 'SKIP_REDIS_TESTS');
