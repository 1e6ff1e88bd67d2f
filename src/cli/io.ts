import { readFile } from 'node:fs/promises';

/** Where a command writes, and how it reads standard input; tests pass their own. */
export interface Io {
  out(line: string): void;
  err(line: string): void;
  readStdin(): Promise<string>;
}

/** Exit codes: 0 done, 1 the command's check failed (not a 2xx, not a valid delivery), 2 misuse. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** A mistake in the command line: printed with a pointer to `--help`, exit 2. */
export class UsageError extends Error {}

/** The process's own streams. */
export const processIo: Io = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
  async readStdin() {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
};

/** Reads a file, or standard input when no file (or `-`) is named. */
export function readInput(file: string | undefined, io: Io): Promise<string> {
  return file === undefined || file === '-' ? io.readStdin() : readFile(file, 'utf8');
}
