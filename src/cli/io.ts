import { open } from 'node:fs/promises';
import { MAX_TIMER_MS } from '../core/checks.js';
import { maskedAddress } from '../internal/address.js';
import { maskSecret } from '../internal/query.js';

/** Where a command writes, and how it reads standard input; tests pass their own. */
export interface Io {
  out(line: string): void;
  err(line: string): void;
  /** Standard input as text; rejects with {@link InputTooLargeError} past `limit` bytes. */
  readStdin(limit: number): Promise<string>;
}

/** Exit codes: 0 done, 1 the command's check failed (not a 2xx, not a valid delivery), 2 misuse. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** A mistake in the command line: printed with a pointer to `--help`, exit 2. */
export class UsageError extends Error {}

/** An input the bin stopped reading because it passed its bound: exit 1. */
export class InputTooLargeError extends Error {
  override name = 'InputTooLargeError';
}

/** The most a command reads from a file, standard input or an answer: a receiver's default body limit. */
export const MAX_INPUT_BYTES = 5 * 1024 * 1024;

/**
 * `--timeout 60` → 60000 ms: seconds above 0 and within what a timer holds (about 24 days; past it
 * Node fires at once). A usage error otherwise.
 */
export function parseTimeout(text: string | undefined): number {
  const ms = Number(text) * 1000;
  if (!(ms > 0 && ms <= MAX_TIMER_MS))
    throw new UsageError(
      `--timeout takes a number of seconds above 0, at most ${Math.floor(MAX_TIMER_MS / 1000)}`,
    );
  return ms;
}

/**
 * Text from the service (an id, a reason, an address) as it may reach a terminal: each control
 * character (C0 but newline and tab, DEL, C1) shown as a `\uXXXX` escape, so a hostile value is
 * seen, never obeyed (ESC [ 2 J would clear the screen).
 */
export function forTerminal(text: string): string {
  let out = '';
  for (const c of text) {
    const code = c.charCodeAt(0);
    const control = (code < 0x20 && c !== '\n' && c !== '\t') || (code >= 0x7f && code <= 0x9f);
    out += control ? `\\u${code.toString(16).padStart(4, '0')}` : c;
  }
  return out;
}

/**
 * An address in a text: a scheme and `://`, up to a space, a quote or an angle bracket. The scheme
 * starts where a run of scheme characters starts (the lookbehind): tried from inside the run too, a
 * megabyte of letters took the regex minutes (quadratic), an answer's body being the text.
 */
const ADDRESS = /(?<![a-z\d+.-])[a-z][a-z\d+.-]*:\/\/[^\s"'<>]+/gi;

/**
 * The text with each address in it shown as {@link maskedAddress} shows one: a service's message
 * that echoes a receiver's address never prints its `?secret=`.
 */
export function addressesMasked(text: string): string {
  return text.replace(ADDRESS, (address) => maskedAddress(address));
}

/**
 * JSON text with DEL and the C1 controls escaped too, as `\u009b`: JSON escapes only those below a
 * space (ESC among them) and leaves these raw, yet CSI (U+009B) starts a control sequence. The text
 * reads back as the same value.
 */
export function terminalSafeJson(text: string): string {
  return text.replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A value as the one JSON document `--json` prints: a receiver's `secret` in any address of its
 * strings masked as `…` (the other query values kept: a script may need a wapi channel's
 * authorization link or a file's signed address whole), and as {@link terminalSafeJson}: no
 * control sequence reaches a terminal.
 */
export function jsonLine(value: unknown): string {
  const masked = (text: string) => text.replace(ADDRESS, (address) => maskSecret(address, '…'));
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? masked(v) : v));
  return terminalSafeJson(text);
}

/** `5 MiB`, `1 MiB`. */
export const mib = (bytes: number): string => `${bytes / 1024 / 1024} MiB`;

/** The process's own streams. */
export const processIo: Io = {
  out: (line) => void (outputClosed || process.stdout.write(`${line}\n`)),
  err: (line) => void (outputClosed || process.stderr.write(`${line}\n`)),
  async readStdin(limit) {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of process.stdin) {
      size += (chunk as Buffer).byteLength;
      if (size > limit) {
        process.stdin.destroy();
        throw new InputTooLargeError(`standard input is larger than ${mib(limit)}; not read further`);
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  },
};

/** Reads a file of at most `limit` bytes (a device or FIFO never ends: it is bounded as it is read). */
async function readFileLimited(file: string, limit: number): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const { bytesRead, buffer } = await handle.read({ buffer: Buffer.alloc(64 * 1024) });
      if (bytesRead === 0) return Buffer.concat(chunks).toString('utf8');
      size += bytesRead;
      if (size > limit)
        throw new InputTooLargeError(`${file} is larger than ${mib(limit)}; not read further`);
      chunks.push(buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
}

/** Reads a file, or standard input when no file (or `-`) is named, up to {@link MAX_INPUT_BYTES}. */
export function readInput(file: string | undefined, io: Io, limit = MAX_INPUT_BYTES): Promise<string> {
  return file === undefined || file === '-' ? io.readStdin(limit) : readFileLimited(file, limit);
}

/** Set once standard output or error is gone: later lines are dropped, not written. */
let outputClosed = false;

/** Whether standard output (or error) was closed under the bin (`| head -c1`, a closed terminal). */
export const isOutputClosed = (): boolean => outputClosed;

/**
 * Makes a closed standard output (`decode | head`) or a terminal gone (EIO after SIGHUP) end the
 * process quietly, with the exit code it had, instead of crashing on EPIPE. When `stop` stops a
 * command that set something up (its subscriptions), the process waits for it to remove them.
 */
export function exitQuietlyOnClosedOutput(stop: (reason: Error) => boolean = () => false): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'EIO') throw error;
      if (outputClosed) return;
      outputClosed = true;
      if (stop(new Error(`the output was closed (${error.code})`))) return;
      process.exit(typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok);
    });
  }
}

/** Text of a value as JSON, or a marker when it is nested too deeply for the call stack. */
export function printable(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (error instanceof RangeError) return JSON.stringify('(nested too deeply to print)');
    throw error;
  }
}
