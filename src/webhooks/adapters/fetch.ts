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
 * Any request with a method, an address, headers and a way to read its body: a `Request`, or a
 * runtime's look-alike that is not one (Azure Functions v4's `HttpRequest`). An unread `body`
 * stream is read by the handler itself, bounded; without one, `arrayBuffer()` or `text()` is
 * called, after the secret check.
 */
export interface FetchRequestLike {
  /** The method. */
  method: string;
  /** The full address. */
  url: string;
  /** The headers. */
  headers: Headers | Record<string, string | string[] | undefined>;
  /**
   * The body as a web `ReadableStream`, when the request has one (typed by the one member read
   * first, so a runtime's own stream class fits as the global one does).
   */
  body?: {
    /** Locks the stream to a reader. */
    getReader(): unknown;
  } | null;
  /** Whether the body was read already (then it cannot be read again). */
  bodyUsed?: boolean;
  /** The body as bytes. */
  arrayBuffer?(): Promise<ArrayBuffer>;
  /** The body as text. */
  text?(): Promise<string>;
}

/**
 * A Fetch-API handler, `(request, context?)` → `Response`: Hono, Next.js route handlers, Bun,
 * Deno, Cloudflare Workers, Azure Functions v4 (`app.http`; its `HttpRequest` is taken as it is).
 * `context.waitUntil`, when given, keeps background listeners alive after the answer. Never
 * throws: a body a middleware already read (and no wrapper kept) is answered 500 and reported on
 * 'error'.
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
): (
  request: FetchRequestLike | CachingRequestLike,
  context?: unknown,
  workersContext?: unknown,
) => Promise<Response> {
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
 * body a middleware read is taken from the wrapper's cache, and a request without a stream is
 * read through its own methods, both lazily, so still after the check.
 */
function bodyOf(input: FetchRequestLike | CachingRequestLike, request: FetchRequestLike): unknown {
  if (!request.bodyUsed) {
    if (request.body !== undefined) return request.body ?? '';
    return readLater(request) ?? '';
  }
  if (!isCaching(input) || Object.keys(input.bodyCache).length === 0) return undefined;
  return readLater(input);
}

/** A stream that reads `source`'s body with `arrayBuffer()` (else `text()`) when it is pulled. */
function readLater(
  source: Pick<FetchRequestLike, 'arrayBuffer' | 'text'>,
): ReadableStream<Uint8Array> | undefined {
  const { arrayBuffer, text } = source;
  if (typeof arrayBuffer !== 'function' && typeof text !== 'function') return undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const bytes =
          typeof arrayBuffer === 'function'
            ? new Uint8Array(await arrayBuffer.call(source))
            : new TextEncoder().encode(await (text as () => Promise<string>).call(source));
        controller.enqueue(bytes);
        controller.close();
      },
    },
    { highWaterMark: 0 }, // pulled only when the handler reads: not before the secret check
  );
}

/** Whether the input is a framework's wrapper (Hono's `c.req`) rather than a request. */
function isCaching(input: FetchRequestLike | CachingRequestLike): input is CachingRequestLike {
  return 'raw' in input && 'bodyCache' in input;
}

/** The `waitUntil` of a context object, bound to it, when it has one. */
function waitUntilOf(context: unknown): ((promise: Promise<unknown>) => void) | undefined {
  const waitUntil = (context as FetchContextLike | undefined)?.waitUntil;
  return typeof waitUntil === 'function' ? waitUntil.bind(context) : undefined;
}
