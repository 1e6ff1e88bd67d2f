import { WebhookParseError } from '../../core/errors.js';

/** What a webhook body may be: text, bytes, or a value a body parser already made. */
export type WebhookBody = string | Uint8Array | ArrayBuffer | object;

/** A body read into a value, with the raw form kept for error reports. */
export type JsonBody = { ok: true; value: unknown; raw: unknown } | { ok: false; error: WebhookParseError };

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Node's (and Bun's, Deno's) Buffer, where there is one. */
const NodeBuffer = (
  globalThis as {
    Buffer?: {
      from(buffer: ArrayBufferLike, offset: number, length: number): { toString(encoding: 'utf8'): string };
    };
  }
).Buffer;

/**
 * UTF-8 bytes as text; throws on invalid UTF-8. Where Node's Buffer exists it decodes (it is the
 * cheaper decoder for small bodies), and only a text holding U+FFFD, which invalid bytes turn
 * into, is decoded again strictly.
 */
function utf8(bytes: Uint8Array | ArrayBuffer): string {
  if (NodeBuffer && bytes instanceof Uint8Array) {
    const text = NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    if (!text.includes('\uFFFD')) return text;
  }
  return decoder.decode(bytes);
}

function parseText(text: string): JsonBody {
  const clean = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(clean), raw: text };
  } catch (cause) {
    // Asked only of a body JSON.parse refused, not of every delivery.
    if (!/\S/.test(clean)) {
      return { ok: false, error: new WebhookParseError([{ path: [], message: 'the body is empty' }], text) };
    }
    // The engine's message quotes the body; only its position is kept (no value of a delivery).
    const at = /position (\d+)/.exec((cause as Error).message)?.[1];
    const message = at === undefined ? 'the body is not JSON' : `the body is not JSON (at character ${at})`;
    // No `cause`: the engine's error quotes the body, and loggers print causes.
    return { ok: false, error: new WebhookParseError([{ path: [], message }], text) };
  }
}

/**
 * Reads a body given as a string, bytes (UTF-8) or an already parsed value. Never throws: a body
 * that cannot be read comes back as a WebhookParseError carrying the raw body.
 */
export function readJsonBody(body: unknown): JsonBody {
  if (typeof body === 'string') return parseText(body);
  if (body instanceof Uint8Array || body instanceof ArrayBuffer) {
    try {
      return parseText(utf8(body));
    } catch (cause) {
      const issue = { path: [], message: 'the body is not valid UTF-8' };
      return { ok: false, error: new WebhookParseError([issue], body, { cause }) };
    }
  }
  return { ok: true, value: body, raw: body };
}
