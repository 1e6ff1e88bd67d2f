import type { WebhookHandler } from '../handler.js';

/**
 * A Fetch-API handler, `Request` → `Response`: Hono, Next.js route handlers, Bun, Deno, workers.
 * Never throws: a body a middleware already read is answered 500 and reported on 'error'.
 * @example
 * ```ts
 * export const POST = createFetchHandler(hooks); // Next.js app/api/hooks/route.ts
 * ```
 */
export function createFetchHandler(handler: WebhookHandler): (request: Request) => Promise<Response> {
  return async (request) => {
    const answer = await handler.handle({
      method: request.method,
      url: request.url,
      headers: request.headers,
      // The stream, unread: the handler reads it after the secret check, bounded in size and time.
      body: request.bodyUsed ? undefined : (request.body ?? ''),
    });
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  };
}
