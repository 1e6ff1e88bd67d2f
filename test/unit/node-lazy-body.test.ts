// A platform that reads the body itself and parses it lazily in a `req.body` getter (Vercel's Node
// helpers do): a getter that throws on a body it cannot parse still gets the delivery answered.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeMiddleware } from '../../src/webhooks/adapters/node.js';
import { messageAdd } from '../support/deliveries.js';
import { collecting, HOOK_URL } from '../support/handler.js';
import { listen } from '../support/servers.js';

describe('createNodeMiddleware behind a lazy body parser', () => {
  const { hooks, errors } = collecting({ dispatch: 'await' });
  const middleware = createNodeMiddleware(hooks);
  let server: Awaited<ReturnType<typeof listen>>;

  beforeAll(async () => {
    server = await listen(
      createServer(async (req: IncomingMessage, res: ServerResponse) => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const text = Buffer.concat(chunks).toString();
        Object.defineProperty(req, 'body', { get: () => JSON.parse(text) }); // throws on bad JSON
        await middleware(req, res);
      }),
    );
  });
  afterAll(() => server.close());

  const post = (body: string) =>
    fetch(`${server.url}${HOOK_URL}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
      signal: AbortSignal.timeout(1_000), // unanswered, it would hang
    });

  it('decodes the value the getter parses', async () => {
    expect((await post(messageAdd())).status).toBe(200);
  });

  it('answers a body the getter cannot parse, and says why on "error"', async () => {
    errors.length = 0;
    const answer = await post('{"event":');
    expect(answer.status).toBe(500);
    expect(errors[0]?.[0].message).toMatch(/a body parser of the framework read it first/);
  });
});
