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

/** A JSON answer. */
export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): WebhookResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/** One header, whatever the shape of the headers (name case-insensitive). */
export function header(headers: WebhookRequest['headers'], name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === lower) return Array.isArray(value) ? value.join(', ') : value;
  }
  return undefined;
}

/** The parsed address of a request, whether `url` is a path or a full address. */
export function parseUrl(url: string): URL {
  return new URL(url || '/', 'http://localhost');
}

/** The address with the `secret` query value masked, for error reports. */
export function maskSecret(url: string): string {
  return url.replace(/([?&]secret=)[^&#]*/gi, '$1***');
}

/** The token of an `Authorization: Bearer <token>` header. */
export function bearer(value: string | undefined): string | undefined {
  const match = /^\s*bearer\s+(.+?)\s*$/i.exec(value ?? '');
  return match?.[1];
}
