import { concatBytes } from '../../internal/bytes.js';
import { LATE, within } from '../../internal/deadline.js';
import { atTurnEnd } from '../../internal/turn-end.js';

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
export function readRequestBody(body: unknown, limits: ReadLimits): Promise<BodyRead> {
  if (body === undefined || body === null) return Promise.resolve({ kind: 'missing' });
  if (isWebStream(body)) return readWebStream(body, limits);
  if (isNodeStream(body)) return readNodeStream(body, limits);
  if (overLimit(body, limits.maxBytes)) return Promise.resolve({ kind: 'tooLarge' });
  return Promise.resolve({ kind: 'body', body });
}

function noop(): void {}

/** A chunk as bytes: bytes as they are, text as UTF-8; anything else is not a body. */
function asBytes(chunk: unknown): Uint8Array | undefined {
  if (chunk instanceof Uint8Array) return chunk;
  if (typeof chunk === 'string') return encoder.encode(chunk);
  return undefined;
}

function readNodeStream(stream: NodeReadable, { maxBytes, timeoutMs }: ReadLimits): Promise<BodyRead> {
  // An 'error' after we stopped listening (a reset during the answer) must not crash the process.
  stream.on('error', noop);
  if (stream.readableEnded || stream.destroyed) return Promise.resolve({ kind: 'missing' });
  return new Promise<BodyRead>((resolve) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let finished = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (result: BodyRead) => {
      finished = true;
      if (timer !== undefined) clearTimeout(timer);
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
      if (size > maxBytes) return finish({ kind: 'tooLarge' }); // the rest flows on, unread
      chunks.push(bytes);
    };
    const onEnd = () => finish({ kind: 'body', body: concatBytes(chunks, size) });
    // A stream that ends or fails twice: `finish` runs once, the listeners are gone after it.
    const onGone = () => finish({ kind: 'gone' });
    // The time limit is armed at the end of this turn, for a body still arriving then: one that
    // came with its headers has ended by then and needs no timer (a timer per delivery cost ~2 %
    // of the server's CPU). The limit then runs from there, a turn after the read began.
    atTurnEnd(() => {
      if (!finished) timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
    });
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
