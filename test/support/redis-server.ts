import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll } from 'vitest';
import { freePort } from './servers.js';

/** A private redis-server on 127.0.0.1, persistence off, stopped by its PID. */
export interface RedisServer {
  port: number;
  url: string;
  /** PID of the running server (undefined while stopped). */
  readonly pid: number | undefined;
  /** Stops it (SIGTERM, or `signal`, then waits for the exit). */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port (after stop). */
  start(): Promise<void>;
}

/** Starts `redis-server` on `port` (127.0.0.1, persistence off) with `extra` arguments; resolves once it accepts connections. */
export async function spawnServer(port: number, extra: string[] = []): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
      ...extra,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output}`)), 30_000); // a safety net: it waits on the ready line
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${output}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  child.removeAllListeners('exit');
  child.stdout?.resume();
  return child;
}

/** Starts a redis-server of the test's own on a free port; stop it in afterAll. */
export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined = await spawnServer(port);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return child?.pid;
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      const exited = once(running, 'exit');
      process.kill(running.pid as number, signal);
      await exited;
    },
    async start() {
      child ??= await spawnServer(port);
    },
  };
}

/**
 * A private redis-server for the tests of the enclosing `describe`: started before them, stopped
 * after. Call it inside the describe; the server's fields are there once its tests run.
 */
export function useRedisServer(): RedisServer {
  const server = {} as RedisServer;
  beforeAll(async () => {
    Object.defineProperties(server, Object.getOwnPropertyDescriptors(await startRedisServer()));
  });
  afterAll(() => server.stop?.());
  return server;
}
