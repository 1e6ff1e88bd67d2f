import { randomUUID } from 'node:crypto';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { formatPath } from '../internal/format-path.js';
import { isRecord } from '../internal/is-record.js';
import { safeParseWebhook } from '../webhooks/decode/parse.js';
import { EXIT, forTerminal, type Io, jsonLine, MAX_INPUT_BYTES, UsageError } from './io.js';
import { parseOptions } from './options.js';
import { deliveryHeaders, postDelivery, printOutcome, shown } from './post.js';
import { isSidecar, numberOf, readSavedFile, type Sidecar, sidecarOf } from './recording.js';
import { applyAssignments } from './set-path.js';

/** The most body files one replay takes (a directory of a million files is a mistake). */
const MAX_FILES = 10_000;
/** The most bytes of a sidecar: a query and a few headers. */
const MAX_SIDECAR_BYTES = 64 * 1024;
/**
 * Headers of a sidecar that describe the recorded request's framing or connection, not the
 * delivery: replaying them would lie about this request (a Content-Length larger than the body
 * keeps the receiver waiting for bytes that never come).
 */
const NOT_REPLAYED = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'host',
  'expect',
  'upgrade',
  'te',
  'trailer',
  'proxy-connection',
]);

/**
 * A folder's files in recording order: by the number they start with (past 9999 a recording's
 * names grow a digit, so `10000-…` sorts before `9999-…` by name), then by name.
 */
const inRecordingOrder = (a: string, b: string): number =>
  numberOf(a) - numberOf(b) || (a < b ? -1 : a > b ? 1 : 0);

/** The body files named: a directory gives its regular `*.json` files (sidecars aside) in recording order. */
async function bodyFiles(paths: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths) {
    const info = await lstat(path).catch(() => {
      throw new UsageError(`cannot read ${path}`);
    });
    if (!info.isDirectory()) files.push(path);
    else {
      // Dirent types come from lstat: a link in the folder is not a file here, so never followed.
      const entries = await readdir(path, { withFileTypes: true });
      const names = entries.filter((e) => e.isFile() && e.name.endsWith('.json') && !isSidecar(e.name));
      files.push(
        ...names
          .map((e) => e.name)
          .sort(inRecordingOrder)
          .map((name) => join(path, name)),
      );
    }
    if (files.length > MAX_FILES) throw new UsageError(`replay takes at most ${MAX_FILES} files at once`);
  }
  return files;
}

/** The sidecar next to a body, or {} when there is none, it is not a regular file or not an object. */
async function sidecarFor(file: string): Promise<Sidecar> {
  try {
    const value: unknown = JSON.parse(await readSavedFile(sidecarOf(file), MAX_SIDECAR_BYTES));
    return isRecord(value) ? (value as Sidecar) : {};
  } catch {
    return {};
  }
}

/** The sidecar's headers fit to send again: string values, valid names, no framing headers. */
function replayedHeaders(sidecar: Sidecar, v3: boolean): Record<string, string> {
  if (!isRecord(sidecar.headers)) return deliveryHeaders(v3, undefined);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(sidecar.headers)) {
    const valid = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/.test(name) && typeof value === 'string';
    if (valid && !/[\r\n\0]/.test(value) && !NOT_REPLAYED.has(name.toLowerCase())) headers[name] = value;
  }
  return headers;
}

/** `--to` with the recorded query when `--to` has none. */
function targetOf(to: URL, sidecar: Sidecar): URL {
  const url = new URL(to);
  if (!url.search && typeof sidecar.query === 'string') url.search = sidecar.query;
  return url;
}

/**
 * The body to send: as saved, or with `--set` applied and (`--new-keys`) a fresh v2
 * `meta.idempotency_key`. Undefined when the body is nested too deeply to be rewritten.
 */
function bodyToSend(raw: string, v2: boolean, assignments: string[], newKeys: boolean): string | undefined {
  if (!assignments.length && !(newKeys && v2)) return raw;
  try {
    const body = applyAssignments(JSON.parse(raw), assignments);
    if (newKeys && v2)
      body.meta = { ...(isRecord(body.meta) ? body.meta : {}), idempotency_key: randomUUID() };
    return JSON.stringify(body);
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/** A file replay could not read, as `{ class, message }`. */
async function readBody(file: string): Promise<string | { class: string; message: string }> {
  try {
    return await readSavedFile(file, MAX_INPUT_BYTES, true);
  } catch (error) {
    const { code, name, message } = error as NodeJS.ErrnoException;
    if (code === 'ELOOP')
      return { class: 'NotAFileError', message: `${file} is a symbolic link; not followed` };
    return { class: name, message: code ? `cannot read ${file} (${code})` : message };
  }
}

/** What every file of one replay shares. */
interface Run {
  io: Io;
  to: URL;
  /** `--only-to`: only the deliveries recorded for this receiver are sent. */
  onlyTo: URL | undefined;
  json: boolean | undefined;
  assignments: string[];
  newKeys: boolean;
}

/** A receiver as the sidecar names it: the address without its query (`origin` + path). */
const receiverOf = (url: URL): string => `${url.origin}${url.pathname}`;

/** The longest receiver address a sidecar may name: the fake records the addresses it delivered to. */
const MAX_RECEIVER_CHARS = 2048;

/**
 * The receiver a sidecar names: an http or https address of at most {@link MAX_RECEIVER_CHARS}.
 * Undefined when it names none, or something no delivery was made to (a `javascript:` URL, a
 * megabyte of text): a hostile sidecar's value is never printed as a receiver.
 */
function recordedReceiver(sidecar: Sidecar): URL | undefined {
  const { receiver } = sidecar;
  if (typeof receiver !== 'string' || receiver.length > MAX_RECEIVER_CHARS) return undefined;
  const url = URL.parse(receiver);
  return url?.protocol === 'http:' || url?.protocol === 'https:' ? url : undefined;
}

/**
 * The receiver a delivery was recorded for, with its recorded query, when it is not `url`'s;
 * undefined when it is, or when the sidecar names none (a body copied from a log).
 */
function otherReceiver(sidecar: Sidecar, url: URL): URL | undefined {
  const recorded = recordedReceiver(sidecar);
  if (!recorded || receiverOf(recorded) === receiverOf(url)) return undefined;
  if (typeof sidecar.query === 'string') recorded.search = sidecar.query;
  return recorded;
}

/**
 * With `--only-to`: prints why a delivery recorded for another receiver (or for none named) is
 * skipped, and resolves true; false when it is to be sent.
 */
function skipped(run: Run, file: string, sidecar: Sidecar): boolean {
  if (!run.onlyTo) return false;
  const other = otherReceiver(sidecar, run.onlyTo);
  if (recordedReceiver(sidecar) && !other) return false;
  const why = other ? 'recorded for another receiver' : 'no receiver recorded';
  if (run.json)
    run.io.out(jsonLine({ file, ok: true, skipped: why, ...(other && { recordedFor: other.href }) }));
  else run.io.out(forTerminal(`${file}: ${why}${other ? ` (${shown(other)})` : ''}; skipped (--only-to)`));
  return true;
}

/** Prints why a file was not sent; resolves to the failed exit code. */
function notSent(run: Run, file: string, error: { class: string; message: string }): number {
  if (run.json) run.io.out(jsonLine({ file, ok: false, error }));
  else run.io.err(forTerminal(`${error.message} (${error.class}); not sent`));
  return EXIT.failed;
}

/** Replays one saved delivery; resolves to its exit code. */
async function replayFile(run: Run, file: string): Promise<number> {
  const sidecar = await sidecarFor(file);
  if (skipped(run, file, sidecar)) return EXIT.ok;
  const raw = await readBody(file);
  if (typeof raw !== 'string') return notSent(run, file, raw);
  const decoded = safeParseWebhook(raw);
  if (!decoded.success) {
    const { issues } = decoded.error;
    if (run.json) run.io.out(jsonLine({ file, ok: false, issues }));
    else {
      const count = `${issues.length} issue${issues.length === 1 ? '' : 's'}`;
      run.io.out(forTerminal(`${file}: not a valid delivery, not sent: ${count}`));
      for (const issue of issues)
        run.io.out(forTerminal(`  ${formatPath(issue.path, '(body)')}: ${issue.message}`));
    }
    return EXIT.failed;
  }
  const v2 = decoded.data.api === 'v2';
  const body = bodyToSend(raw, v2, run.assignments, run.newKeys);
  if (body === undefined)
    return notSent(run, file, { class: 'RangeError', message: `${file} is nested too deeply to rewrite` });
  const url = targetOf(run.to, sidecar);
  const outcome = await postDelivery(url, body, replayedHeaders(sidecar, !v2));
  // Another receiver's delivery carries its secret: the answer is likely a 401, and this says why
  // (with --only-to, every delivery sent is that receiver's: the user chose where it goes).
  const other = run.onlyTo ? undefined : otherReceiver(sidecar, url);
  const note = other ? `, recorded for another receiver (${shown(other)})` : '';
  const fields = { file, ...(other && { recordedFor: other.href }) };
  printOutcome(run.io, run.json, `POST ${shown(url)} ${file}${note}`, outcome, fields);
  return outcome.ok ? EXIT.ok : EXIT.failed;
}

/** The options of `replay`. */
export const REPLAY_OPTIONS = {
  to: { type: 'string' },
  'only-to': { type: 'string' },
  set: { type: 'string', multiple: true },
  'new-keys': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

/**
 * `messaging-gateway replay <file or dir>… --to <url> [--only-to <url>] [--set path=value]…
 * [--new-keys] [--json]`: POSTs saved deliveries in order and prints each answer (saying when a
 * delivery was recorded for another receiver). Exits 0 when every one sent decoded and got a 2xx.
 */
export async function replay(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseOptions(args, REPLAY_OPTIONS);
  if (positionals.length === 0) throw new UsageError('replay needs at least one file or directory');
  const onlyTo = values['only-to'];
  if (onlyTo !== undefined && !URL.canParse(onlyTo))
    throw new UsageError('--only-to takes the receiver, an absolute URL');
  // --only-to alone replays that receiver's deliveries to it
  const to = values.to ?? onlyTo;
  if (!to || !URL.canParse(to)) throw new UsageError('replay needs --to <url>, an absolute URL');
  const assignments = values.set ?? [];
  applyAssignments({}, assignments); // a bad --set is a usage error before anything is sent
  const run = {
    io,
    to: new URL(to),
    onlyTo: onlyTo === undefined ? undefined : new URL(onlyTo),
    json: values.json,
    assignments,
    newKeys: values['new-keys'] ?? false,
  };
  let code: number = EXIT.ok;
  for (const file of await bodyFiles(positionals)) {
    if ((await replayFile(run, file)) !== EXIT.ok) code = EXIT.failed;
  }
  return code;
}
