import { concatBytes } from '../../core/bytes.js';
import type { WebhookHandler } from '../handler.js';
import { jsonResponse, type WebhookResponse } from '../http.js';

/** The members of node's IncomingMessage (and Express's Request) the middleware touches. */
export interface NodeRequestLike extends AsyncIterable<unknown> {
  method?: string | undefined;
  url?: string | undefined;
  /** Express keeps the full path here when the middleware is mounted below a prefix. */
  originalUrl?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  /** Set by a body parser that ran first (express.json, express.text, express.raw). */
  body?: unknown;
  readableEnded?: boolean;
}

/** The members of node's ServerResponse the middleware touches. */
export interface NodeResponseLike {
  /** Status of the answer. */
  statusCode: number;
  /** Sets one header of the answer. */
  setHeader(name: string, value: string): unknown;
  /** Used when present: one call for status and headers. */
  writeHead?(status: number, headers: Record<string, string>): unknown;
  /** Sends the body and ends the answer. */
  end(body?: string): unknown;
}

/** Options of {@link createNodeMiddleware}. */
export interface NodeMiddlewareOptions {
  /** Only this path is handled; others go to `next()`, or get 404 without it. */
  path?: string;
}

const TOO_LARGE = Symbol('too large');

/** Reads the body of an unread stream, stopping at `max` bytes. */
async function readStream(req: NodeRequestLike, max: number): Promise<Uint8Array | typeof TOO_LARGE> {
  const declared = Number(req.headers['content-length']);
  if (declared > max) return TOO_LARGE;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of req) {
    const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : (chunk as Uint8Array);
    size += bytes.byteLength;
    if (size > max) return TOO_LARGE; // leaving the loop stops reading
    chunks.push(bytes);
  }
  return concatBytes(chunks, size);
}

/** A body parser that did not match the content type leaves `{}` (Express 4) or nothing (Express 5). */
function parsedBody(req: NodeRequestLike): unknown {
  const { body } = req;
  if (body === undefined) return undefined;
  const emptyObject = typeof body === 'object' && body !== null && Object.keys(body).length === 0;
  return emptyObject && req.readableEnded === false ? undefined : body;
}

function send(res: NodeResponseLike, answer: WebhookResponse): void {
  if (typeof res.writeHead === 'function') {
    res.writeHead(answer.status, answer.headers);
  } else {
    res.statusCode = answer.status;
    for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  }
  res.end(answer.body);
}

/**
 * A node:http request listener and an Express/Connect middleware at once. Works with no body
 * parser, and after express.json(), express.raw() or express.text().
 * @example
 * ```ts
 * http.createServer(createNodeMiddleware(hooks)).listen(3000);
 * app.post('/hooks', createNodeMiddleware(hooks)); // Express
 * ```
 */
export function createNodeMiddleware(handler: WebhookHandler, options: NodeMiddlewareOptions = {}) {
  return async (
    req: NodeRequestLike,
    res: NodeResponseLike,
    next?: (error?: unknown) => void,
  ): Promise<void> => {
    const url = req.originalUrl ?? req.url ?? '/';
    if (options.path !== undefined && new URL(url, 'http://localhost').pathname !== options.path) {
      if (next) return next();
      return send(res, jsonResponse(404, { error: 'not_found' }));
    }
    const method = req.method ?? 'GET';
    let body = parsedBody(req);
    if (body === undefined && method.toUpperCase() === 'POST') {
      const read = await readStream(req, handler.maxBodyBytes);
      if (read === TOO_LARGE) {
        // The rest is not read: close the connection rather than drain it.
        return send(res, jsonResponse(413, { error: 'body_too_large' }, { connection: 'close' }));
      }
      body = read;
    }
    send(res, await handler.handle({ method, url, headers: req.headers, body }));
  };
}
