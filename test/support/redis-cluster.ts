import { type ChildProcess, execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { spawnServer } from './redis-server.js';
import { freePort } from './servers.js';

const run = promisify(execFile);

/** A three-master Redis Cluster on 127.0.0.1 (no replicas, persistence off), each node stopped by its PID. */
export interface RedisCluster {
  /** The nodes' ports, in the order they were started. */
  ports: number[];
  /** The nodes, as `redis://127.0.0.1:<port>`. */
  urls: string[];
  /** Kills the master at `index` (SIGKILL, by PID): its slots are gone, the cluster goes down. */
  kill(index: number): Promise<void>;
  /** Stops every node. */
  stop(): Promise<void>;
}

async function isFree(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

// A node also listens on port + 10000 (the cluster bus): both must be free and valid.
async function freeClusterPort(taken: number[]): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port < 55_000 && !taken.includes(port) && (await isFree(port + 10_000))) return port;
  }
}

async function clusterOk(port: number): Promise<boolean> {
  const { stdout } = await run('redis-cli', ['-p', String(port), 'cluster', 'info']).catch(() => ({
    stdout: '',
  }));
  return stdout.includes('cluster_state:ok');
}

/** Starts three cluster-enabled redis-servers on free ports and joins them; resolves at cluster_state:ok on every node. */
export async function startRedisCluster(): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'mgsdk-cluster-'));
  const ports: number[] = [];
  for (let i = 0; i < 3; i++) ports.push(await freeClusterPort(ports));
  const children: (ChildProcess | undefined)[] = await Promise.all(
    ports.map((port) =>
      spawnServer(port, [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(dir, `nodes-${port}.conf`),
        '--cluster-node-timeout',
        '2000',
        '--dir',
        dir,
      ]),
    ),
  );
  const stopOne = async (index: number, signal: NodeJS.Signals) => {
    const child = children[index];
    children[index] = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    process.kill(child.pid as number, signal);
    await exited;
  };
  const stop = async () => {
    await Promise.all(children.map((_, i) => stopOne(i, 'SIGTERM')));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const nodes = ports.map((port) => `127.0.0.1:${port}`);
    await run('redis-cli', ['--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes']);
    for (let i = 0; i < 200; i++) {
      if ((await Promise.all(ports.map(clusterOk))).every(Boolean)) break;
      await sleep(50);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    ports,
    urls: ports.map((port) => `redis://127.0.0.1:${port}`),
    kill: (index) => stopOne(index, 'SIGKILL'),
    stop,
  };
}

/**
 * A private three-node cluster for the tests of the enclosing `describe`: started before them,
 * stopped after. Its fields are there once the tests run.
 */
export function useRedisCluster(): RedisCluster {
  const cluster = {} as RedisCluster;
  beforeAll(async () => {
    Object.assign(cluster, await startRedisCluster());
  }, 30_000);
  afterAll(() => cluster.stop?.());
  return cluster;
}

/** Where a slot went: its number, the indexes (in `ports`) of the masters it left and joined, the keys moved. */
export interface SlotMove {
  slot: number;
  from: number;
  to: number;
  keys: number;
}

/**
 * Moves the slot of `hashTag` to the next master while clients use it, as `redis-cli --cluster
 * reshard` does: IMPORTING on the destination, MIGRATING on the source, its keys MIGRATEd in
 * batches of 10 (`pauseMs` between them, so clients meet the ASK and TRYAGAIN of a slot half
 * moved), then the slot given to the destination on every node (MOVED from then on).
 */
export async function moveSlot(cluster: RedisCluster, hashTag: string, pauseMs = 10): Promise<SlotMove> {
  const nodes = cluster.ports.map((port) => new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 }));
  const on = (index: number, ...args: (string | number)[]) =>
    (nodes[index] as Redis).call(String(args[0]), ...args.slice(1));
  try {
    const slot = Number(await on(0, 'CLUSTER', 'KEYSLOT', hashTag));
    const ranges = (await on(0, 'CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
    const owner = ranges.find(([start, end]) => start <= slot && slot <= end) as [
      number,
      number,
      [string, number],
    ];
    const from = cluster.ports.indexOf(Number(owner[2][1]));
    const to = (from + 1) % cluster.ports.length;
    const ids = (await Promise.all(cluster.ports.map((_, i) => on(i, 'CLUSTER', 'MYID')))) as string[];
    await on(to, 'CLUSTER', 'SETSLOT', slot, 'IMPORTING', ids[from] as string);
    await on(from, 'CLUSTER', 'SETSLOT', slot, 'MIGRATING', ids[to] as string);
    let moved = 0;
    for (;;) {
      const keys = (await on(from, 'CLUSTER', 'GETKEYSINSLOT', slot, 10)) as string[];
      if (keys.length === 0) break;
      moved += keys.length;
      await on(from, 'MIGRATE', '127.0.0.1', cluster.ports[to] as number, '', 0, 5000, 'KEYS', ...keys);
      await sleep(pauseMs);
    }
    const others = [...cluster.ports.keys()].filter((i) => i !== to && i !== from);
    for (const i of [to, from, ...others]) await on(i, 'CLUSTER', 'SETSLOT', slot, 'NODE', ids[to] as string);
    return { slot, from, to, keys: moved };
  } finally {
    for (const node of nodes) node.disconnect();
  }
}
