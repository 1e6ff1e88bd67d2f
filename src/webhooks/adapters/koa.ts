import { type HandlerSource, resolveSource } from '../receive/handler-source.js';

/** The members of a Koa context (Koa 2 and 3) the middleware touches. */
export interface KoaContextLike {
  method: string;
  /** The full path and query, also under a mount prefix. */
  originalUrl: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  request: {
    /** Set by a body parser that ran first: `@koa/bodyparser` (parsed value) or `koa-body`. */
    body?: unknown;
    /** The text `@koa/bodyparser` read, kept beside the parsed value. */
    rawBody?: unknown;
  };
  /** node's IncomingMessage: the body stream, read by the handler when no parser read it. */
  req: { readableEnded?: boolean };
  /** Status of the answer. */
  status: number;
  /** Sets headers of the answer. */
  set(headers: Record<string, string>): unknown;
  /** Body of the answer. */
  body: unknown;
}

/** Options of {@link createKoaMiddleware}. */
export interface KoaMiddlewareOptions {
  /** Only this path is handled; others go on to `next()`. Without it, every request is handled. */
  path?: string;
}

/** Where `koa-body` keeps the raw text with `includeUnparsed: true`. */
const UNPARSED = Symbol.for('unparsedBody');

/**
 * The body as the parsers left it: the raw text a parser kept (exact bytes beat a re-encoded
 * value), the unread stream when no parser read it (`@koa/bodyparser` leaves `{}` for a type it
 * does not parse), or the parsed value.
 */
function bodyOf({ request, req }: KoaContextLike): unknown {
  if (typeof request.rawBody === 'string') return request.rawBody;
  const parsed = request.body as Record<symbol, unknown> | undefined;
  const unparsed = parsed?.[UNPARSED];
  if (typeof unparsed === 'string') return unparsed;
  if (parsed === undefined || req.readableEnded === false) return req;
  return parsed;
}

/**
 * A Koa middleware (Koa 2 and 3), placed before or after `@koa/bodyparser` or `koa-body`.
 * Before a parser (or with none), it owns the body: malformed JSON reaches 'error' and bodies up
 * to `maxBodyBytes` are read whatever the parser's limits. After one, it takes the raw text the
 * parser kept, or the parsed value; a body the parser refused was answered by the parser.
 * @example
 * ```ts
 * app.use(createKoaMiddleware(hooks, { path: '/hooks' })); // or router.post('/hooks', createKoaMiddleware(hooks))
 * ```
 */
export function createKoaMiddleware(source: HandlerSource, options: KoaMiddlewareOptions = {}) {
  const handler = resolveSource(source);
  return async (ctx: KoaContextLike, next: () => Promise<unknown>): Promise<void> => {
    if (options.path !== undefined && ctx.path !== options.path) {
      await next();
      return;
    }
    const answer = await handler.handle({
      method: ctx.method,
      url: ctx.originalUrl,
      headers: ctx.headers,
      body: bodyOf(ctx),
    });
    ctx.status = answer.status;
    ctx.set(answer.headers);
    ctx.body = answer.body;
  };
}
