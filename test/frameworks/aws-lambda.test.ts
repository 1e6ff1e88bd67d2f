// createLambdaHandler invoked by lambda-local, a runner that loads a handler and calls it as
// Lambda does (with a full Context, a timeout, and the result taken when its promise resolves),
// with the events AWS sends through API Gateway, a Function URL and an ALB.
import lambdaLocal from 'lambda-local';
import { describe, expect, it } from 'vitest';
import { createLambdaHandler, type LambdaHttpResult } from '../../src/webhooks/adapters/lambda.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { messageAdd } from '../support/deliveries.js';
import { albEvent, functionUrlEvent, httpApiEvent, restEvent } from '../support/lambda-events.js';
import { SECRET, skipFrameworks } from './cases.js';

lambdaLocal.setLogger({ log() {}, transports: [] } as never); // quiet: it logs every invocation

/** Invokes `handler` with `event` as the runner does. */
function invoke(handler: unknown, event: unknown): Promise<LambdaHttpResult> {
  return lambdaLocal.execute({
    event,
    lambdaFunc: { handler },
    timeoutMs: 10_000,
    verboseLevel: 0,
  }) as Promise<LambdaHttpResult>;
}

describe.skipIf(skipFrameworks)('AWS Lambda through lambda-local', () => {
  const body = { body: messageAdd(undefined, 'привет') };
  const events = [
    ['API Gateway REST', () => restEvent('/hooks/acme', { secret: SECRET }, body)],
    ['API Gateway HTTP API', () => httpApiEvent('/hooks/acme', `secret=${SECRET}`, body)],
    [
      'a Function URL, base64',
      () => functionUrlEvent('/hooks/acme', `secret=${SECRET}`, { ...body, base64: true }),
    ],
    ['an ALB', () => albEvent('/hooks/acme', { secret: SECRET }, body)],
  ] as const;

  for (const [source, event] of events) {
    it(`${source}: every background listener finished when the invocation ends`, async () => {
      const hooks = new WebhookHandler({ secret: SECRET }); // dispatch: 'background'
      const done: string[] = [];
      hooks.on('message.add', async ({ data }, { url }) => {
        await new Promise((resolve) => setImmediate(resolve));
        done.push(`${url} ${data[0]?.text}`);
      });
      const result = await invoke(createLambdaHandler(hooks), event());
      expect(result.statusCode).toBe(200);
      expect(JSON.parse(result.body)).toEqual({ ok: true });
      expect(done).toEqual(['/hooks/acme привет']);
    });
  }

  it('a wrong secret: 401, nothing run', async () => {
    const hooks = new WebhookHandler({ secret: SECRET });
    hooks.on('error', () => {});
    const result = await invoke(createLambdaHandler(hooks), httpApiEvent('/hooks', 'secret=no', body));
    expect(result.statusCode).toBe(401);
  });
});
