import { concatBytes } from '../../internal/bytes.js';
import { LATE, within } from '../../internal/deadline.js';

/**
 * What reading a delivery's body came to: the body (text, bytes, or a value a framework's parser
 * made), or why there is none.
 */
export type BodyRead =
  | { kind: 'body'; body: unknown }
  /** Over `maxBytes`: reading stopped there. */
  | { kind: 'tooLarge' }
  /** Not complete within the time allowed. */
  | { kind: 'timeout' }
  /** The client went away mid-body (or the stream failed). */
  | { kind: 'gone' }
  /** No body to read: nothing was given, or a framework read the stream and kept nothing. */
  | { kind: 'missing' };

/** Bounds of a read. */
export interface ReadLimits {
  maxBytes: number;
  timeoutMs: number;
}

/** The members of a node Readable (IncomingMessage) the reader touches. */
interface NodeReadable {
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off?(event: string, listener: (...args: unknown[]) => void): unknown;
  removeListener(event: string, listener: (...args: unknown[]) => void): unknown;
  pipe: unknown;
  readableEnded?: boolean;
  destroyed?: boolean;
}

const encoder = new TextEncoder();

function isWebStream(body: unknown): body is ReadableStream<Uint8Array> {
  return typeof (body as ReadableStream | null)?.getReader === 'function';
}

function isNodeStream(body: unknown): body is NodeReadable {
  const b = body as NodeReadable | null;
  return typeof b?.on === 'function' && typeof b.pipe === 'function';
}

/** Whether a text or bytes body is over `max` bytes. */
function overLimit(body: unknown, max: number): boolean {
  if (typeof body === 'string') {
    if (body.length > max) return true;
    return body.length * 3 > max && encoder.encode(body).byteLength > max;
  }
  if (body instanceof Uint8Array || body instanceof ArrayBuffer) return body.byteLength > max;
  return false; // a parsed value was bounded by its parser
}

/**
 * Reads a body in whatever form it came: an unread node stream or web `ReadableStream` (read
 * here, bounded in bytes and in time), text, bytes, or a parsed value. Never throws and never
 * leaves a rejection or an 'error' event unhandled, whatever the client does mid-body.
 */
export async function readRequestBody(body: unknown, limits: ReadLimits): Promise<BodyRead> {
  if (body === undefined || body === null) return { kind: 'missing' };
  if (isWebStream(body)) return readWebStream(body, limits);
  if (isNodeStream(body)) return readNodeStream(body, limits);
  if (overLimit(body, limits.maxBytes)) return { kind: 'tooLarge' };
  return { kind: 'body', body };
}

function noop(): void {}

/** A chunk as bytes: bytes as they are, text as UTF-8; anything else is not a body. */
function asBytes(chunk: unknown): Uint8Array | undefined {
  if (chunk instanceof Uint8Array) return chunk;
  if (typeof chunk === 'string') return encoder.encode(chunk);
  return undefined;
}

/**
 * Reads a node stream to its end, within `timeoutMs` of the start. On any ending (the body, too
 * large, the time limit, the client gone) the timer is cleared and every listener removed at once,
 * so nothing more is buffered: a body over the limit flows on unread.
 */
function readNodeStream(stream: NodeReadable, { maxBytes, timeoutMs }: ReadLimits): Promise<BodyRead> {
  // An 'error' after we stopped listening (a reset during the answer) must not crash the process.
  stream.on('error', noop);
  if (stream.readableEnded || stream.destroyed) return Promise.resolve({ kind: 'missing' });
  return new Promise<BodyRead>((resolve) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const finish = (result: BodyRead) => {
      clearTimeout(timer);
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onGone);
      stream.removeListener('close', onGone);
      resolve(result);
    };
    const onData = (chunk: unknown) => {
      const bytes = asBytes(chunk);
      if (!bytes) return finish({ kind: 'gone' }); // not a body stream: nothing sensible to read
      size += bytes.byteLength;
      if (size > maxBytes) return finish({ kind: 'tooLarge' });
      chunks.push(bytes);
    };
    const onEnd = () => finish({ kind: 'body', body: concatBytes(chunks, size) });
    // A stream that ends or fails twice: the listeners are gone after the first.
    const onGone = () => finish({ kind: 'gone' });
    const timer = setTimeout(finish, timeoutMs, { kind: 'timeout' });
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onGone);
    stream.on('close', onGone); // 'end' comes before 'close' when the body was whole
  });
}

async function readWebStream(stream: ReadableStream<Uint8Array>, limits: ReadLimits): Promise<BodyRead> {
  if (stream.locked) return { kind: 'missing' };
  const reader = stream.getReader();
  const read = await within(readAll(reader, limits.maxBytes), limits.timeoutMs);
  return read === LATE ? stop(reader, { kind: 'timeout' }) : read;
}

async function readAll(reader: ReadableStreamDefaultReader<Uint8Array>, maxBytes: number): Promise<BodyRead> {
  try {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const next = await reader.read();
      if (next.done) return { kind: 'body', body: concatBytes(chunks, size) };
      const bytes = asBytes(next.value);
      if (!bytes) return stop(reader, { kind: 'gone' });
      size += bytes.byteLength;
      if (size > maxBytes) return stop(reader, { kind: 'tooLarge' });
      chunks.push(bytes);
    }
  } catch {
    return { kind: 'gone' };
  }
}

/** Cancels the rest of a web stream (never throwing) and returns `result`. */
function stop(reader: ReadableStreamDefaultReader<Uint8Array>, result: BodyRead): BodyRead {
  reader.cancel().catch(noop);
  return result;
}
