import { type ChildProcess, execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
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
