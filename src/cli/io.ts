import { createReadStream } from 'node:fs';

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

/** The most a command reads from a file or standard input (a delivery is at most 5 MiB). */
export const MAX_INPUT_BYTES = 16 * 1024 * 1024;

/** A stream read whole as UTF-8, refused past {@link MAX_INPUT_BYTES} (an endless stdin stops there). */
export async function readBounded(stream: AsyncIterable<unknown> & { destroy?(): unknown }, what: string) {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += bytes.byteLength;
    if (size > MAX_INPUT_BYTES) {
      stream.destroy?.();
      throw new Error(`${what} is over ${MAX_INPUT_BYTES / 1024 / 1024} MiB (a delivery is at most 5 MiB)`);
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The process's own streams. */
export const processIo: Io = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
  readStdin: () => readBounded(process.stdin, 'standard input'),
};

/** Reads a file, or standard input when no file (or `-`) is named; both bounded. */
export function readInput(file: string | undefined, io: Io): Promise<string> {
  return file === undefined || file === '-' ? io.readStdin() : readBounded(createReadStream(file), file);
}
