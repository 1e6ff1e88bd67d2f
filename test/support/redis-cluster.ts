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
  }, 120_000); // six servers and a cluster's agreement on a busy machine: a safety net
  afterAll(() => cluster.stop?.());
  return cluster;
}

/** A slot on its way to the next master: IMPORTING there, MIGRATING here, its keys not moved yet. */
export interface SlotMoving {
  /** The slot, and the indexes (in `ports`) of the masters it leaves and joins. */
  slot: number;
  from: number;
  to: number;
  /** MIGRATEs its keys in batches of 10, `pauseMs` apart; resolves with how many moved. */
  moveKeys(pauseMs: number): Promise<number>;
  /** Gives the slot to the destination on every node (MOVED from then on), and closes. */
  finish(): Promise<void>;
  /** Leaves the slot where it was (STABLE on both), and closes. */
  cancel(): Promise<void>;
}

/**
 * Starts moving the slot of `hashTag` to the next master, as `redis-cli --cluster reshard` does:
 * from here until `finish` or `cancel`, a command meeting keys of the slot half moved is
 * answered ASK (none of its keys here) or TRYAGAIN (some here, some gone).
 */
export async function startSlotMove(cluster: RedisCluster, hashTag: string): Promise<SlotMoving> {
  const nodes = cluster.ports.map((port) => new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 }));
  const on = (index: number, ...args: (string | number)[]) =>
    (nodes[index] as Redis).call(String(args[0]), ...args.slice(1));
  const close = () => {
    for (const node of nodes) node.disconnect();
  };
  try {
    const slot = Number(await on(0, 'CLUSTER', 'KEYSLOT', hashTag));
    const ranges = (await on(0, 'CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
    const owner = ranges.find(([start, end]) => start <= slot && slot <= end);
    const from = cluster.ports.indexOf(Number(owner?.[2][1]));
    const to = (from + 1) % cluster.ports.length;
    const ids = (await Promise.all(cluster.ports.map((_, i) => on(i, 'CLUSTER', 'MYID')))) as string[];
    await on(to, 'CLUSTER', 'SETSLOT', slot, 'IMPORTING', ids[from] as string);
    await on(from, 'CLUSTER', 'SETSLOT', slot, 'MIGRATING', ids[to] as string);
    return {
      slot,
      from,
      to,
      async moveKeys(pauseMs) {
        let moved = 0;
        for (;;) {
          const keys = (await on(from, 'CLUSTER', 'GETKEYSINSLOT', slot, 10)) as string[];
          if (keys.length === 0) return moved;
          moved += keys.length;
          await on(from, 'MIGRATE', '127.0.0.1', cluster.ports[to] as number, '', 0, 5000, 'KEYS', ...keys);
          await sleep(pauseMs);
        }
      },
      async finish() {
        const others = [...cluster.ports.keys()].filter((i) => i !== to && i !== from);
        for (const i of [to, from, ...others])
          await on(i, 'CLUSTER', 'SETSLOT', slot, 'NODE', ids[to] as string);
        close();
      },
      async cancel() {
        for (const i of [to, from]) await on(i, 'CLUSTER', 'SETSLOT', slot, 'STABLE');
        close();
      },
    };
  } catch (error) {
    close();
    throw error;
  }
}

/** Moves the slot of `hashTag` to the next master while clients use it; resolves with how many keys moved. */
export async function moveSlot(
  cluster: RedisCluster,
  hashTag: string,
  pauseMs = 10,
): Promise<SlotMoving & { keys: number }> {
  const moving = await startSlotMove(cluster, hashTag);
  try {
    const keys = await moving.moveKeys(pauseMs);
    await moving.finish();
    return { ...moving, keys };
  } catch (error) {
    await moving.cancel().catch(() => {});
    throw error;
  }
}
