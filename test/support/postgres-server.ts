// A private PostgreSQL for the tests: initdb into a temp dir, `postgres` on a free port of
// 127.0.0.1, stopped by its PID. PostgreSQL refuses to run as root: as root the data dir is given
// to the `postgres` user and both programs run through `runuser -u postgres --`.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './servers.js';

/** The folder of Debian's PostgreSQL programs (the newest version), or undefined when none is installed. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const dir = versions.map((v) => join(root, v, 'bin')).find((bin) => existsSync(join(bin, 'postgres')));
  return dir ?? process.env.POSTGRES_BIN_DIR;
}

/** How to get a PostgreSQL server (one line). */
export const POSTGRES_INSTALL =
  'apt-get install postgresql (or set POSTGRES_BIN_DIR to the folder of initdb and postgres)';

/** A running private server. */
export interface PostgresServer {
  url: string;
  port: number;
  /**
   * Stops it (fast shutdown: every connection is dropped), waits `downMs`, and starts it again on
   * the same port and data: what a deploy or a failover does to the connections of its clients.
   */
  restart(downMs?: number): Promise<void>;
  /** Stops it (fast shutdown) by its PID and removes its data dir. */
  stop(): Promise<void>;
}

const asRoot = process.getuid?.() === 0;

function command(bin: string, program: string, args: string[]): [string, string[]] {
  return asRoot
    ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]]
    : [join(bin, program), args];
}

/** initdb into a fresh temp dir (owned by `postgres` when run as root). */
function initDataDir(bin: string): string {
  const base = mkdtempSync(join(tmpdir(), 'mgsdk-pg-'));
  const data = join(base, 'data');
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(base, uid, gid);
    chmodSync(base, 0o700);
  }
  const [cmd, args] = command(bin, 'initdb', [
    '-D',
    data,
    '-U',
    'postgres',
    '-A',
    'trust',
    '--no-sync',
    '-E',
    'UTF8',
  ]);
  execFileSync(cmd, args, { stdio: 'pipe' });
  return data;
}

const SETTINGS = [
  '-c',
  'fsync=off',
  '-c',
  'synchronous_commit=off',
  '-c',
  'full_page_writes=off',
  '-c',
  'max_connections=200',
];

/** Starts `postgres` on `data` and `port`; resolves once it accepts connections. */
async function launch(bin: string, data: string, port: number): Promise<ChildProcess> {
  const [cmd, args] = command(bin, 'postgres', [
    '-D',
    data,
    '-p',
    String(port),
    '-h',
    '127.0.0.1',
    '-k',
    data,
    ...SETTINGS,
  ]);
  const child: ChildProcess = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`postgres did not start: ${output}`)), 60_000); // a safety net: it waits on the server's ready line
    child.once('exit', (code) => reject(new Error(`postgres exited (${code}): ${output}`)));
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  child.removeAllListeners('exit');
  return child;
}

/** Fast shutdown of the server running on `data` (the postmaster's own PID: runuser's child as root). */
async function shutDown(child: ChildProcess, data: string): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  process.kill(pid, 'SIGINT');
  await exited;
}

/** Starts a server of the test's own; resolves once it accepts connections. */
export async function startPostgresServer(bin: string): Promise<PostgresServer> {
  const data = initDataDir(bin);
  const port = await freePort();
  let child = await launch(bin, data, port);
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async restart(downMs = 0) {
      await shutDown(child, data);
      await new Promise((resolve) => setTimeout(resolve, downMs));
      child = await launch(bin, data, port);
    },
    async stop() {
      await shutDown(child, data);
      rmSync(join(data, '..'), { recursive: true, force: true });
    },
  };
}
