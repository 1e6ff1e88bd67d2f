// The bin `messaging-gateway`, spawned from source as a user runs it.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';

export const BIN = ['--import', 'tsx', 'src/cli/main.ts'];

/**
 * The safety-net time-out of a test that runs the bin (most run it several times): each start
 * compiles the bin from source (tsx), seconds apiece on a loaded two-core machine.
 */
export const BIN_RUNS_TIMEOUT_MS = 120_000;

/** What a run of the bin printed and how it ended. */
export interface BinRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Starts the bin; the caller feeds or reads its streams. */
export function startBin(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [...BIN, ...args], { stdio: 'pipe', env: { ...process.env, ...env } });
}

/** Runs a started process to its end; `input` goes to its standard input. */
export function runToEnd(child: ChildProcessWithoutNullStreams, input?: string): Promise<BinRun> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', () => {}); // a process that exits before reading all of it
    child.stdin.end(input ?? '');
  });
}

/** Runs the bin to its end; `input` goes to its standard input. */
export function runBin(args: string[], input?: string, env: NodeJS.ProcessEnv = {}): Promise<BinRun> {
  return runToEnd(startBin(args, env), input);
}
