import { readLimited } from '../internal/bytes.js';
import { isRecord } from '../internal/is-record.js';
import {
  AuthenticationError,
  BadRequestError,
  GatewayApiError,
  type GatewayApiErrorInit,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
} from './errors.js';

/**
 * Reads a body as text, at most `limit` bytes counted after decompression (a compressed body's
 * declared length says nothing of what it expands to): past it the read stops and the result is
 * undefined, so memory never grows past the bound.
 */
export async function readText(response: Response, limit: number): Promise<string | undefined> {
  if (!response.body) return '';
  // Declared, not compressed and within the limit: the runtime's own reader is the fastest, and
  // it fails if the body runs past the declared length.
  const declared = response.headers.get('content-length');
  if (declared && +declared <= limit && !response.headers.has('content-encoding')) return response.text();
  const bytes = await readLimited(response.body, limit);
  return bytes && new TextDecoder().decode(bytes);
}

/** JSON when the text is JSON, else the text itself (v3 PATCH answers the word `ok`), else null. */
export function parseBody(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The `data` of a v2 envelope; tolerates an empty answer (`null`) and a body without envelope. */
export function unwrapEnvelope(body: unknown): unknown {
  if (isRecord(body) && 'data' in body) return body.data ?? null;
  return body;
}

const byStatus: Record<number, typeof GatewayApiError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  429: RateLimitError,
};

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/**
 * The service's request id of an answer: the `x-request-id` header, else `request_id` (or
 * `requestId`) in the body or in a v2 envelope's `data` (a send's id); undefined when none.
 */
export function requestIdOf(headers: Headers, body: unknown): string | undefined {
  const header = headers.get('x-request-id');
  if (header) return header;
  if (!isRecord(body)) return undefined;
  const data = isRecord(body.data) ? body.data : {};
  return text(body.request_id) ?? text(body.requestId) ?? text(data.request_id) ?? text(data.requestId);
}

/** The error class for a non-2xx status (an empty body still maps by status). */
export function apiErrorClass(status: number): typeof GatewayApiError {
  return byStatus[status] ?? (status >= 500 ? InternalServerError : GatewayApiError);
}

/**
 * Builds the API error of a non-2xx answer from its parsed body (spec: Errors → Error body):
 * `error` may be a string or an object `{ code }`; the body may be empty or not JSON at all.
 */
export function apiErrorInit(
  status: number,
  body: unknown,
  headers: Headers,
  request: { method: string; url: string },
): GatewayApiErrorInit {
  const b = isRecord(body) ? body : {};
  const rawError = b.error;
  // spec: Errors → Error body; a 401 may carry only a top-level `code`.
  const code = (isRecord(rawError) ? text(rawError.code) : text(rawError)) ?? text(b.code);
  const description =
    text(b.description) ??
    (isRecord(rawError) ? (text(rawError.description) ?? text(rawError.message)) : undefined) ??
    text(b.message) ??
    (typeof body === 'string' && body.length <= 500 ? body : undefined);
  const requestId = requestIdOf(headers, body);
  const plainHeaders: Record<string, string> = {};
  headers.forEach((value, key) => {
    if (key !== 'set-cookie') plainHeaders[key] = value;
  });
  return {
    status,
    method: request.method,
    url: request.url,
    code,
    description,
    data: b.data,
    requestId,
    headers: plainHeaders,
  };
}
