import type { WebhookHandler } from '../handler.js';

/** What the runtime passes beside the request: Cloudflare Workers' `ctx`, Vercel's context. */
export interface FetchContextLike {
  /** Keeps the runtime alive until the promise settles: background listeners finish. */
  waitUntil?(promise: Promise<unknown>): void;
}

/**
 * A Fetch-API handler, `(request, context?)` → `Response`: Hono, Next.js route handlers, Bun,
 * Deno, Cloudflare Workers. `context.waitUntil`, when given, keeps background listeners alive
 * after the answer. Never throws: a body a middleware already read is answered 500 and reported
 * on 'error'.
 * @example
 * ```ts
 * export const POST = createFetchHandler(hooks); // Next.js app/api/hooks/route.ts
 * export default { fetch: createFetchHandler(hooks) }; // Cloudflare Workers: (request, env, ctx)
 * ```
 */
export function createFetchHandler(
  handler: WebhookHandler,
): (request: Request, context?: unknown, workersContext?: unknown) => Promise<Response> {
  return async (request, context, workersContext) => {
    const answer = await handler.handle(
      {
        method: request.method,
        url: request.url,
        headers: request.headers,
        // The stream, unread: the handler reads it after the secret check, bounded in size and time.
        body: request.bodyUsed ? undefined : (request.body ?? ''),
      },
      { waitUntil: waitUntilOf(workersContext) ?? waitUntilOf(context) },
    );
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  };
}

/** The `waitUntil` of a context object, bound to it, when it has one. */
function waitUntilOf(context: unknown): ((promise: Promise<unknown>) => void) | undefined {
  const waitUntil = (context as FetchContextLike | undefined)?.waitUntil;
  return typeof waitUntil === 'function' ? waitUntil.bind(context) : undefined;
}
