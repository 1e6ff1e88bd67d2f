import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatPath } from '../internal/format-path.js';
import { isRecord } from '../internal/is-record.js';
import { safeParseWebhook } from '../webhooks/decode/parse.js';
import { EXIT, type Io, readInput, UsageError } from './io.js';
import { deliveryHeaders, postDelivery, shown } from './post.js';
import { isSidecar, type Sidecar, sidecarOf } from './recording.js';
import { applyAssignments } from './set-path.js';

/** The body files named: a directory gives its `*.json` files (sidecars aside) in name order. */
async function bodyFiles(paths: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths) {
    const info = await stat(path).catch(() => {
      throw new UsageError(`cannot read ${path}`);
    });
    if (!info.isDirectory()) files.push(path);
    else {
      const names = (await readdir(path)).filter((n) => n.endsWith('.json') && !isSidecar(n)).sort();
      files.push(...names.map((n) => join(path, n)));
    }
  }
  return files;
}

/** The sidecar next to a body, or {} when there is none or it is not an object. */
async function sidecarFor(file: string, io: Io): Promise<Sidecar> {
  const text = await readInput(sidecarOf(file), io, 64 * 1024).catch(() => undefined);
  if (text === undefined) return {};
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? (value as Sidecar) : {};
  } catch {
    return {};
  }
}

/** `--to` with the recorded query when `--to` has none. */
function targetOf(to: URL, sidecar: Sidecar): URL {
  const url = new URL(to);
  if (!url.search && typeof sidecar.query === 'string') url.search = sidecar.query;
  return url;
}

/**
 * `messaging-gateway replay <file or dir>… --to <url> [--set path=value]… [--json]`: POSTs saved
 * deliveries in order and prints each answer. Exits 0 when every one decoded and got a 2xx.
 */
export async function replay(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { to: { type: 'string' }, set: { type: 'string', multiple: true }, json: { type: 'boolean' } },
    allowPositionals: true,
  });
  if (positionals.length === 0) throw new UsageError('replay needs at least one file or directory');
  if (!values.to || !URL.canParse(values.to))
    throw new UsageError('replay needs --to <url>, an absolute URL');
  const to = new URL(values.to);
  const assignments = values.set ?? [];
  applyAssignments({}, assignments); // a bad --set is a usage error before anything is sent
  let code: number = EXIT.ok;
  for (const file of await bodyFiles(positionals)) {
    let raw = await readInput(file, io);
    const decoded = safeParseWebhook(raw);
    if (!decoded.success) {
      const { issues } = decoded.error;
      if (values.json) io.out(JSON.stringify({ file, ok: false, issues }));
      else {
        io.out(
          `${file}: not a valid delivery, not sent: ${issues.length} issue${issues.length === 1 ? '' : 's'}`,
        );
        for (const issue of issues) io.out(`  ${formatPath(issue.path, '(body)')}: ${issue.message}`);
      }
      code = EXIT.failed;
      continue;
    }
    if (assignments.length) raw = JSON.stringify(applyAssignments(JSON.parse(raw), assignments));
    const sidecar = await sidecarFor(file, io);
    const url = targetOf(to, sidecar);
    const headers = isRecord(sidecar.headers)
      ? (sidecar.headers as Record<string, string>)
      : deliveryHeaders(decoded.data.api === 'v3', undefined);
    const answer = await postDelivery(url, raw, headers, io);
    if (!answer?.ok) code = EXIT.failed;
    if (!answer) continue;
    if (values.json)
      io.out(JSON.stringify({ file, ok: answer.ok, status: answer.status, body: answer.body }));
    else {
      io.out(`POST ${shown(url)} ${file} → ${answer.status} ${answer.statusText}`);
      if (answer.body !== '')
        io.out(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
    }
  }
  return code;
}
