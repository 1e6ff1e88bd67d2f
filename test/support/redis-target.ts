import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { startRedisCluster } from './redis-cluster.js';
import { startRedisServer } from './redis-server.js';

/** Where a Redis suite runs: one redis-server, or a three-master Redis Cluster. */
export const TARGETS = ['single', 'cluster'] as const;
/** Which target. */
export type TargetKind = (typeof TARGETS)[number];

/** A running target, as the suites of one file share it. */
export interface RedisTarget {
  /** What `connectClient` takes: one URL, or the cluster's nodes separated by commas. */
  url: string;
  /** Each node as `redis://127.0.0.1:<port>` (one for a single server). */
  nodes: string[];
  /** Stops every process of the target. */
  stop(): Promise<void>;
}

/** Starts a target of the given kind on free ports. */
export async function startRedisTarget(kind: TargetKind): Promise<RedisTarget> {
  if (kind === 'single') {
    const server = await startRedisServer();
    return { url: server.url, nodes: [server.url], stop: () => server.stop() };
  }
  const cluster = await startRedisCluster();
  return { url: cluster.urls.join(','), nodes: cluster.urls, stop: () => cluster.stop() };
}

/**
 * A target for the tests of the enclosing `describe`, started once before them and stopped after
 * (one cluster per file keeps the suite's time down). Its fields are there once the tests run.
 */
export function useRedisTarget(kind: TargetKind): RedisTarget {
  const target = {} as RedisTarget;
  beforeAll(async () => {
    Object.assign(target, await startRedisTarget(kind));
  }, 120_000); // a safety net: a cluster starts in seconds, more on a busy machine
  afterAll(() => target.stop?.());
  return target;
}

/**
 * Sends one command to every node of the target on a plain connection of its own (ACL SETUSER,
 * CLIENT KILL: what a cluster client would send to one node only).
 */
export async function onEveryNode(target: RedisTarget, args: string[]): Promise<unknown[]> {
  return Promise.all(
    target.nodes.map(async (url) => {
      const node = new Redis(url, { maxRetriesPerRequest: 1 });
      try {
        return await node.call(args[0] as string, ...args.slice(1));
      } finally {
        node.disconnect();
      }
    }),
  );
}
