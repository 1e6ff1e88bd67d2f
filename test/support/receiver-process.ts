import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A receiver (test/e2e/processes/receiver.ts) running in its own process. */
export interface ReceiverProcess {
  child: ChildProcess;
  port: number;
  url: string;
  /** The lines its listener wrote. */
  journal(): string[];
  stop(): Promise<void>;
}

/** A folder for journals, removed with `cleanup`. */
export function journalDir(): { file: (name: string) => string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'mgsdk-receiver-'));
  return { file: (name) => join(dir, name), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Forks the receiver with `env`, and resolves once it listens on 127.0.0.1. */
export async function startReceiver(env: Record<string, string>): Promise<ReceiverProcess> {
  const child = fork(new URL('../e2e/processes/receiver.ts', import.meta.url), {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, WEBHOOK_SECRET: 'receiver-secret', ...env },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const [{ port }] = (await once(child, 'message')) as [{ port: number }];
  return {
    child,
    port,
    url: `http://127.0.0.1:${port}/hooks?secret=receiver-secret`,
    journal: () => (env.JOURNAL ? readLines(env.JOURNAL) : []),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await once(child, 'exit');
    },
  };
}

function readLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/**
 * Opens a raw connection, writes `head` and then `body`, and resolves with the head of the answer
 * as soon as it came, or with what came (nothing) when the socket closed or `closeAfterMs` passed.
 */
export function rawRequest(port: number, head: string, body = '', closeAfterMs?: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n\r\n')) socket.destroy(); // the answer's head is all a test reads
    });
    socket.on('error', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    socket.write(head + body);
    if (closeAfterMs !== undefined) setTimeout(() => socket.destroy(), closeAfterMs);
  });
}

/** The head of a POST to the receiver's hook path. */
export function postHead(path: string, headers: Record<string, string | number>): string {
  const lines = Object.entries({ host: '127.0.0.1', 'content-type': 'application/json', ...headers }).map(
    ([k, v]) => `${k}: ${v}`,
  );
  return `POST ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}
