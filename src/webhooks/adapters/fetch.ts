import { readLimited } from '../../core/bytes.js';
import type { WebhookHandler } from '../handler.js';

/** Reads a Request's body, or undefined once it passes `max` bytes. */
async function readBytes(request: Request, max: number): Promise<Uint8Array | undefined> {
  if (Number(request.headers.get('content-length')) > max) return undefined;
  return request.body ? readLimited(request.body, max) : new Uint8Array();
}

/**
 * A Fetch-API handler, `Request` → `Response`: Hono, Next.js route handlers, Bun, Deno, workers.
 * @example
 * ```ts
 * export const POST = createFetchHandler(hooks); // Next.js app/api/hooks/route.ts
 * ```
 */
export function createFetchHandler(handler: WebhookHandler): (request: Request) => Promise<Response> {
  return async (request) => {
    let body: Uint8Array | undefined;
    if (request.method.toUpperCase() === 'POST') {
      const read = await readBytes(request, handler.maxBodyBytes);
      if (read === undefined) {
        return Response.json({ error: 'body_too_large' }, { status: 413, headers: { connection: 'close' } });
      }
      body = read;
    }
    const answer = await handler.handle({
      method: request.method,
      url: request.url,
      headers: request.headers,
      body,
    });
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  };
}
