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
 * The first value of `name` in the query of `url` (a path or a full address), decoded as
 * URLSearchParams decodes it; null when absent. Reads the query only: cheaper than parsing the
 * whole address on every delivery.
 */
export function queryValue(url: string, name: string): string | null {
  const start = url.indexOf('?');
  if (start < 0) return null;
  const end = url.indexOf('#', start);
  const query = end < 0 ? url.slice(start + 1) : url.slice(start + 1, end);
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    if (decodeQuery(key) === name) return decodeQuery(eq < 0 ? '' : pair.slice(eq + 1));
  }
  return null;
}

function decodeQuery(part: string): string {
  const spaced = part.includes('+') ? part.replaceAll('+', ' ') : part;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    // Malformed escapes: decoded exactly as URL decodes its own query.
    return new URL(`http://x/?x=${part}`).searchParams.get('x') ?? '';
  }
}

/** The address with every `secret` query value masked (its key read as `queryValue` reads it). */
export function maskSecret(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const end = url.indexOf('#', start);
  const query = end < 0 ? url.slice(start + 1) : url.slice(start + 1, end);
  const masked = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const key = eq < 0 ? pair : pair.slice(0, eq);
      return decodeQuery(key).toLowerCase() === 'secret' ? `${key}=***` : pair;
    })
    .join('&');
  return url.slice(0, start + 1) + masked + (end < 0 ? '' : url.slice(end));
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
