import { type HandlerSource, resolveSource } from '../receive/handler-source.js';
import { jsonResponse, type WebhookResponse } from '../receive/request.js';

/** The members of node's IncomingMessage (and Express's Request) the middleware touches. */
export interface NodeRequestLike {
  method?: string | undefined;
  url?: string | undefined;
  /** Express keeps the full path here when the middleware is mounted below a prefix. */
  originalUrl?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  /** Set by a body parser that ran first (express.json, express.text, express.raw). */
  body?: unknown;
  /**
   * The exact bytes a parser kept beside its value: NestJS with `rawBody: true`, or a parser's
   * `verify` callback that stores them. Preferred to `body` when present.
   */
  rawBody?: unknown;
  /** False while the body stream is still unread. */
  readableEnded?: boolean;
  /** Stream member: the handler reads an unread body itself, bounded in bytes and time. */
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  /** Stops listening once the body is read (or refused). */
  removeListener(event: string, listener: (...args: unknown[]) => void): unknown;
  /** Marks the request as a stream. */
  pipe: unknown;
  /** The connection: cut when a refused body goes on past what the SDK drains. */
  socket?:
    | {
        /** Closes the connection at once. */
        destroy(): unknown;
      }
    | null
    | undefined;
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
  /** True once the answer was sent (by someone else, or the client left). */
  headersSent?: boolean;
  /** True once the connection is gone. */
  destroyed?: boolean;
}

/** Options of {@link createNodeMiddleware}. */
export interface NodeMiddlewareOptions {
  /** Only this path is handled; others go to `next()`, or get 404 without it. */
  path?: string;
}

/**
 * The body as the framework left it: the raw bytes a parser kept, a parser's value, or the
 * request stream itself (read by the handler after it checked the secret). A parser that did not
 * match the content type leaves `{}` (Express 4) or nothing (Express 5) and the stream unread.
 */
function bodyOf(req: NodeRequestLike): unknown {
  const { rawBody } = req;
  if (typeof rawBody === 'string' || rawBody instanceof Uint8Array) return rawBody;
  const body = parsedBody(req);
  if (body === undefined) return req;
  const emptyObject = typeof body === 'object' && body !== null && Object.keys(body).length === 0;
  return emptyObject && req.readableEnded === false ? req : body;
}

/**
 * `req.body`, or undefined when reading it throws: a platform's lazy parser (Vercel's Node helpers)
 * throws on a body it cannot parse, and the delivery must still be answered.
 */
function parsedBody(req: NodeRequestLike): unknown {
  try {
    return req.body;
  } catch {
    return undefined;
  }
}

/** The path of a request's URL, or undefined when it cannot be parsed (`//`, `http://`). */
function pathOf(url: string): string | undefined {
  try {
    return new URL(url, 'http://localhost').pathname;
  } catch {
    return undefined;
  }
}

function send(res: NodeResponseLike, answer: WebhookResponse): void {
  if (res.headersSent || res.destroyed) return;
  if (typeof res.writeHead === 'function') {
    res.writeHead(answer.status, answer.headers);
  } else {
    res.statusCode = answer.status;
    for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  }
  res.end(answer.body);
}

/** Time a refused body is given to finish arriving before the connection is cut (ms). */
const DRAIN_TIMEOUT_MS = 10_000;

/** Whether a refused body is still arriving and not declared past twice the limit (`max`). */
function drainable(req: NodeRequestLike, max: number): boolean {
  if (req.readableEnded !== false) return false;
  const declared = Number(req.headers['content-length']);
  return !(declared > max * 2); // a body declared far past the limit is cut at once
}

/**
 * A 413 the client can read: many clients write their whole body before they read the answer,
 * and a connection closed under them ends in EPIPE instead of the 413. So the answer goes out at
 * once, the rest of the body is read and dropped, up to `extra` bytes (twice `maxBodyBytes`) and
 * {@link DRAIN_TIMEOUT_MS}, and past either bound the connection is cut.
 */
function drainThenAnswer(
  req: NodeRequestLike,
  res: NodeResponseLike,
  answer: WebhookResponse,
  extra: number,
): void {
  const { connection: _close, ...headers } = answer.headers;
  send(res, { ...answer, headers });
  let drained = 0;
  const cut = () => {
    stop();
    req.socket?.destroy();
  };
  const onData = (chunk: unknown) => {
    drained += (chunk as Uint8Array).byteLength ?? 0;
    if (drained > extra) cut();
  };
  const stop = () => {
    clearTimeout(timer);
    req.removeListener('data', onData);
    req.removeListener('end', stop);
    req.removeListener('close', stop);
  };
  const timer = setTimeout(cut, DRAIN_TIMEOUT_MS);
  timer.unref?.();
  req.on('data', onData);
  req.on('end', stop);
  req.on('close', stop);
}

/**
 * A node:http request listener and an Express/Connect middleware at once: node:http, Express 4
 * and 5 (with or without a body parser), NestJS (`@Req()`/`@Res()` or `consumer.apply()`). Never
 * rejects, whatever the client does mid-body.
 * @example
 * ```ts
 * http.createServer(createNodeMiddleware(hooks)).listen(3000);
 * app.post('/hooks', createNodeMiddleware(hooks)); // Express
 * ```
 */
export function createNodeMiddleware(source: HandlerSource, options: NodeMiddlewareOptions = {}) {
  const handler = resolveSource(source);
  return async (
    req: NodeRequestLike,
    res: NodeResponseLike,
    next?: (error?: unknown) => void,
  ): Promise<void> => {
    try {
      const url = req.originalUrl ?? req.url ?? '/';
      // A URL that cannot be parsed (`//`) is not a delivery: passed on like any other path.
      if (options.path !== undefined && pathOf(url) !== options.path) {
        if (next) return next();
        return send(res, jsonResponse(404, { error: 'not_found' }));
      }
      const method = req.method ?? 'GET';
      const body = bodyOf(req);
      const answer = await handler.handle({ method, url, headers: req.headers, body });
      const max = answer.status === 413 ? handler.get().maxBodyBytes : 0;
      if (answer.status === 413 && body === req && drainable(req, max)) {
        return drainThenAnswer(req, res, answer, max * 2);
      }
      send(res, answer);
    } catch {
      // handle() never throws; this guards a response object that does (a closed socket).
    }
  };
}
