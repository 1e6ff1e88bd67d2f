import { type HandlerSource, resolveSource } from '../receive/handler-source.js';

/** The members of a Fastify request (4 and 5) the plugin touches. */
export interface FastifyRequestLike {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The unread body stream the plugin's own content-type parser hands on. */
  body?: unknown;
  /** node's IncomingMessage: the body when no parser ran (a POST without a body). */
  raw: unknown;
}

/** The members of a Fastify reply (4 and 5) the plugin touches. */
export interface FastifyReplyLike {
  /** Sets the status of the answer. */
  code(status: number): unknown;
  /** Sets one header of the answer. */
  header(name: string, value: string): unknown;
  /** Sends the body and ends the answer. */
  send(body: string): unknown;
}

/** The methods the plugin's route answers (all but POST with 405, from the outcome table). */
export type HttpMethod = 'DELETE' | 'GET' | 'PATCH' | 'POST' | 'PUT';

/** The members of a Fastify instance (4 and 5) the plugin touches. */
export interface FastifyInstanceLike {
  /** Removes the parsers this scope inherited (only inside the plugin's own scope). */
  removeAllContentTypeParsers(): unknown;
  /** Adds the parser that hands on the unread body stream. */
  addContentTypeParser(
    contentType: string,
    parser: (request: unknown, payload: unknown, done: (error: null, body: unknown) => void) => void,
  ): unknown;
  /** Registers the webhook route. */
  route(options: {
    method: HttpMethod[];
    url: string;
    handler: (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<unknown>;
  }): unknown;
}

/** Options of {@link createFastifyPlugin}. */
export interface FastifyPluginOptions {
  /** The route's path, e.g. `'/hooks'` (the `?secret=` query is not part of it). */
  path: string;
}

// Every method reaches the handler, so a GET is answered 405 by the outcome table, not 404.
const METHODS: HttpMethod[] = ['DELETE', 'GET', 'PATCH', 'POST', 'PUT'];

/**
 * A Fastify plugin (Fastify 4 and 5) that owns one route. In its own encapsulated scope (it is
 * deliberately not wrapped in `fastify-plugin`) it replaces every content-type parser by one that
 * hands on the unread body stream: the handler reads it after the secret check, bounded by
 * `maxBodyBytes`, so any `application/json` variant, malformed JSON (reported on 'error') and
 * bodies up to `maxBodyBytes` reach the SDK whatever the app's `bodyLimit`, while the app's other
 * routes keep Fastify's own parsers.
 * @example
 * ```ts
 * await app.register(createFastifyPlugin(hooks, { path: '/hooks' }));
 * ```
 */
export function createFastifyPlugin(source: HandlerSource, options: FastifyPluginOptions) {
  const handler = resolveSource(source);
  return async function messagingGatewayWebhooks(instance: FastifyInstanceLike): Promise<void> {
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    instance.route({
      method: METHODS,
      url: options.path,
      handler: async (request, reply) => {
        const answer = await handler.handle({
          method: request.method,
          url: request.url,
          headers: request.headers,
          body: request.body ?? request.raw,
        });
        reply.code(answer.status);
        for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
        return reply.send(answer.body);
      },
    });
  };
}
