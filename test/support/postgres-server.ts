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

/** Starts a server of the test's own; resolves once it accepts connections. */
export async function startPostgresServer(bin: string): Promise<PostgresServer> {
  const data = initDataDir(bin);
  const port = await freePort();
  const settings = [
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'full_page_writes=off',
    '-c',
    'max_connections=200',
  ];
  const [cmd, args] = command(bin, 'postgres', [
    '-D',
    data,
    '-p',
    String(port),
    '-h',
    '127.0.0.1',
    '-k',
    data,
    ...settings,
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
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      if (child.exitCode === null) {
        const exited = once(child, 'exit');
        // The postmaster's own PID (runuser's child when run as root): SIGINT is a fast shutdown.
        const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
        process.kill(pid, 'SIGINT');
        await exited;
      }
      rmSync(join(data, '..'), { recursive: true, force: true });
    },
  };
}
