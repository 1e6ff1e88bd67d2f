import type { IncomingMessage, ServerResponse } from 'node:http';
import { isRecord } from '../internal/is-record.js';

/** Largest request body the fake gateway reads (bytes). */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

/** A request body over the bound {@link readJson} was given: answered 413. */
export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the body is over ${maxBytes} bytes`);
  }
}

/**
 * Reads a request body as JSON (undefined when empty); bounded to `maxBytes` (5 MiB): past it,
 * rejects with {@link BodyTooLargeError} and keeps nothing (the rest is read and dropped).
 */
export async function readJson(req: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      req.resume();
      throw new BodyTooLargeError(maxBytes);
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

/** Answers JSON; `undefined` answers an empty body. */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, {
    ...(text && { 'content-type': 'application/json' }),
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Answers the v2 success envelope (spec: Resources → Response envelope). */
export function envelope(res: ServerResponse, data: unknown): void {
  json(res, 200, { data, meta: { timestamp: Math.floor(Date.now() / 1000) } });
}

/** Answers a spec error body: `error`, `description`, optional `data` (spec: Errors → Error body). */
export function fail(
  res: ServerResponse,
  status: number,
  error: string,
  description: string,
  data?: unknown,
): void {
  json(res, status, data === undefined ? { error, description } : { error, description, data });
}

/** An object, or undefined. */
export function asObject(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined;
}
