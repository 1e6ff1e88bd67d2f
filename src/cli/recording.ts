// The files `fake-gateway --record` writes and `replay` reads: per delivery, its raw body
// (`0001-message.add.json`, the form `decode` reads) and a small sidecar
// (`0001-message.add.meta.json`) with what the body does not hold: the URL's query and headers.
import { closeSync, constants, mkdirSync, openSync, readdirSync, unlinkSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { DeliveryRecord } from '../testing/deliveries.js';
import { InputTooLargeError, mib } from './io.js';

/** What a sidecar holds. */
export interface Sidecar {
  /**
   * The receiver the delivery was made for: its URL without the query (`http://127.0.0.1:3000/hooks`).
   * `replay` says when it differs from `--to`, and `--only-to` replays only one receiver's.
   */
  receiver?: string;
  /** The delivery URL's query (`?secret=…`), used when `replay --to` has none. */
  query?: string;
  /** The headers the delivery was sent with (content type, a v3 delivery's Authorization). */
  headers?: Record<string, string>;
  /** The status the receiver answered when it was recorded (0: no answer). */
  status?: number;
}

/** The sidecar's name next to a body file. */
export const sidecarOf = (file: string): string => file.replace(/\.json$/, '.meta.json');

/** Whether a file name is a sidecar (replay skips them as bodies). */
export const isSidecar = (file: string): boolean => file.endsWith('.meta.json');

/** The number a recorded file starts with (`0012-message.add.json` → 12), or 0. */
export const numberOf = (name: string): number => Number(/^(\d{4,9})-/.exec(name)?.[1] ?? 0);

/**
 * Creates a new private file (0600) and writes it; fails with EEXIST when the name is taken, by a
 * file or by a symbolic link (O_EXCL never follows a link: a planted one cannot lead outside).
 */
function writeNew(file: string, text: string): void {
  const fd = openSync(
    file,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** Writes a body and its sidecar under the first free number from `n`; resolves to the number used. */
function writePair(dir: string, n: number, kind: string, body: string, sidecar: string): number {
  for (let next = n; ; next++) {
    const file = join(dir, `${String(next).padStart(4, '0')}-${kind}.json`);
    try {
      writeNew(file, body);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw error;
    }
    try {
      writeNew(sidecarOf(file), sidecar);
      return next;
    } catch (error) {
      unlinkSync(file);
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/**
 * Saves each delivery in `dir`, numbered in the order they were answered, after the last number a
 * recording already there holds (so a replay of the folder keeps each run in order). Files are
 * private (0600), created new: an existing file or link is never written through. A delivery that
 * cannot be saved is reported through `onError` (the gateway goes on).
 */
export function recorder(dir: string, onError: (message: string) => void = () => {}) {
  mkdirSync(dir, { recursive: true });
  let n = readdirSync(dir).reduce((last, name) => Math.max(last, numberOf(name)), 0);
  return (record: DeliveryRecord, sent: { body: string; headers: Record<string, string> }): void => {
    const kind = record.kind.replace(/[^\w.+-]/g, '_').slice(0, 100);
    const { origin, pathname, search } = new URL(record.url);
    const sidecar: Sidecar = {
      receiver: `${origin}${pathname}`,
      ...(search && { query: search }),
      headers: sent.headers,
      status: record.status ?? 0,
    };
    try {
      n = writePair(dir, n + 1, kind, sent.body, `${JSON.stringify(sidecar, null, 2)}\n`);
    } catch (error) {
      onError(
        `could not record a ${kind} delivery in ${dir}: ${(error as NodeJS.ErrnoException).code ?? error}`,
      );
    }
  };
}

/**
 * Reads a saved file of at most `limit` bytes. Only a regular file is read: a FIFO, a device or a
 * directory is refused at once (opened without blocking, never waited on), and so is a symbolic
 * link unless `followLink` (a file the user named on the command line).
 */
export async function readSavedFile(file: string, limit: number, followLink = false): Promise<string> {
  const flags = constants.O_RDONLY | constants.O_NONBLOCK | (followLink ? 0 : constants.O_NOFOLLOW);
  const handle = await open(file, flags);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new NotAFileError(`${file} is not a regular file; not read`);
    if (info.size > limit) throw new InputTooLargeError(`${file} is larger than ${mib(limit)}; not read`);
    const buffer = Buffer.alloc(Math.min(info.size, limit) + 1);
    let size = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, size, buffer.length - size, size);
      if (bytesRead === 0) break;
      size += bytesRead;
      if (size > limit)
        throw new InputTooLargeError(`${file} is larger than ${mib(limit)}; not read further`);
    }
    return buffer.subarray(0, size).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** A path `replay` will not read: not a regular file, or a link where none is followed. */
export class NotAFileError extends Error {
  override name = 'NotAFileError';
}
