/** A delivery as any HTTP framework can describe it: the input of `WebhookHandler.handle`. */
export interface WebhookRequest {
  method: string;
  /** Path and query (`/hooks?secret=…`) or a full address. */
  url: string;
  headers: Headers | Record<string, string | string[] | undefined>;
  /** The body: text, bytes, or a value a body parser already made. */
  body: unknown;
}

/** The answer to send back: the output of `WebhookHandler.handle`. */
export interface WebhookResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const encoder = new TextEncoder();

/** A JSON answer. */
export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): WebhookResponse {
  const text = JSON.stringify(body);
  // A known length lets node send the answer in one write instead of chunked.
  const length = String(encoder.encode(text).byteLength);
  return {
    status,
    headers: { 'content-type': 'application/json', 'content-length': length, ...headers },
    body: text,
  };
}

/**
 * One header, whatever the shape of the headers; `name` is given in lower case (node's own
 * spelling, read first) and matched in any case.
 */
export function header(headers: WebhookRequest['headers'], name: Lowercase<string>): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const direct = (headers as Record<string, string | string[] | undefined>)[name];
  if (direct !== undefined) return Array.isArray(direct) ? direct.join(', ') : direct;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(', ') : value;
  }
  return undefined;
}

/**
 * The token of an `Authorization: Bearer <token>` header. Linear in the header's length: the
 * sender chooses the header, so no backtracking pattern reads it.
 */
export function bearer(value: string | undefined): string | undefined {
  const text = (value ?? '').trim();
  if (text.length < 8 || text.slice(0, 6).toLowerCase() !== 'bearer' || !isSpace(text.charCodeAt(6))) {
    return undefined;
  }
  return text.slice(7).trim() || undefined;
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9;
}
