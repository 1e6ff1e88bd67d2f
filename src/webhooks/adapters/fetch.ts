import { type HandlerSource, resolveSource } from '../receive/handler-source.js';

/** What the runtime passes beside the request: Cloudflare Workers' `ctx`, Vercel's context. */
export interface FetchContextLike {
  /** Keeps the runtime alive until the promise settles: background listeners finish. */
  waitUntil?(promise: Promise<unknown>): void;
}

/**
 * A framework's wrapper of a `Request` that keeps what a middleware read (Hono's `c.req`): given
 * it instead of the bare `Request`, a body a middleware already read still reaches the handler.
 */
export interface CachingRequestLike {
  /** The `Request` itself. */
  raw: Request;
  /** The bodies read so far, by kind; empty while nothing read the body. */
  bodyCache: object;
  /** The body as bytes, from the cache when a middleware read it. */
  arrayBuffer(): Promise<ArrayBuffer>;
}

/**
 * A Fetch-API handler, `(request, context?)` → `Response`: Hono, Next.js route handlers, Bun,
 * Deno, Cloudflare Workers. `context.waitUntil`, when given, keeps background listeners alive
 * after the answer. Never throws: a body a middleware already read (and no wrapper kept) is
 * answered 500 and reported on 'error'.
 * @example
 * ```ts
 * // Next.js app/api/hooks/route.ts: built on the first request, so `next build` needs no secret
 * export const POST = createFetchHandler(() => new WebhookHandler({ secret: process.env.WEBHOOK_SECRET }));
 * export default { fetch: createFetchHandler(hooks) }; // Cloudflare Workers: (request, env, ctx)
 * app.post('/hooks', (c) => handle(c.req)); // Hono: c.req keeps a body a middleware read
 * ```
 */
export function createFetchHandler(
  source: HandlerSource,
): (request: Request | CachingRequestLike, context?: unknown, workersContext?: unknown) => Promise<Response> {
  const handler = resolveSource(source);
  return async (input, context, workersContext) => {
    const request = isCaching(input) ? input.raw : input;
    const answer = await handler.handle(
      { method: request.method, url: request.url, headers: request.headers, body: bodyOf(input, request) },
      { waitUntil: waitUntilOf(workersContext) ?? waitUntilOf(context) },
    );
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  };
}

/**
 * The stream, unread: the handler reads it after the secret check, bounded in size and time. A
 * body a middleware read is taken from the wrapper's cache, lazily, so still after the check.
 */
function bodyOf(input: Request | CachingRequestLike, request: Request): unknown {
  if (!request.bodyUsed) return request.body ?? '';
  if (!isCaching(input) || Object.keys(input.bodyCache).length === 0) return undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      controller.enqueue(new Uint8Array(await input.arrayBuffer()));
      controller.close();
    },
  });
}

/** Whether the input is a framework's wrapper (Hono's `c.req`) rather than a bare `Request`. */
function isCaching(input: Request | CachingRequestLike): input is CachingRequestLike {
  return 'raw' in input && 'bodyCache' in input;
}

/** The `waitUntil` of a context object, bound to it, when it has one. */
function waitUntilOf(context: unknown): ((promise: Promise<unknown>) => void) | undefined {
  const waitUntil = (context as FetchContextLike | undefined)?.waitUntil;
  return typeof waitUntil === 'function' ? waitUntil.bind(context) : undefined;
}
