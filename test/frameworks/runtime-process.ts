import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { MATRIX_INSTALL } from '../support/system-parts.js';

/** The repository's root. */
export const ROOT = join(import.meta.dirname, '..', '..');

/** A binary that an npm package of the matrix's own project installed (bun, deno, workerd). */
export function binary(name: string): string {
  const path = join(import.meta.dirname, 'node_modules', '.bin', name);
  if (!existsSync(path)) throw new Error(`${name} is not installed: run ${MATRIX_INSTALL}`);
  return path;
}

/** A server in another runtime: its address, everything it printed, and a stopper. */
export interface RuntimeProcess {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/** How to start a runtime: its environment, and the port it was told to use when it prints none. */
export interface RuntimeOptions {
  env?: Record<string, string>;
  /** The port given on its command line: ready once it accepts a connection there. */
  port?: number;
  timeoutMs?: number;
}

/**
 * Starts `command` and resolves once it listens: it printed `listening <port>`, or accepts
 * connections on `options.port`. Rejects with what it printed when it exits first or is not
 * listening within the time allowed.
 */
export async function startRuntime(
  command: string,
  args: string[],
  options: RuntimeOptions = {},
): Promise<RuntimeProcess> {
  const { env = {}, port: given, timeoutMs = 60_000 } = options;
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: 'pipe' });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk;
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const stop = () => kill(child);
  const exited = new Promise<never>((_, reject) => {
    child.once('exit', (code) => reject(new Error(`${command} exited (${code}):\n${output}`)));
  });
  exited.catch(() => {}); // only raced while starting
  const listening = async (): Promise<number> => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const port = given ?? Number(/listening (\d+)/.exec(output)?.[1] ?? 0);
      if (port && (given === undefined || (await accepts(port)))) return port;
      if (Date.now() > end) throw new Error(`${command} not listening after ${timeoutMs} ms:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  try {
    const port = await Promise.race([listening(), exited]);
    return { url: `http://127.0.0.1:${port}`, output: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGKILL');
  await once(child, 'exit');
}

/** Resolves once `predicate` holds, polling every 20 ms; rejects after `timeoutMs`. */
export async function eventually(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > end) throw new Error(`not so after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
