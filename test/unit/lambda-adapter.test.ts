// createLambdaHandler against the events AWS sends: each event source's body, query and headers
// translated, the answer in the shape that source reads, and every listener done before the
// promise resolves (Lambda freezes the process once the handler returns).
import type {
  ALBHandler,
  APIGatewayProxyHandler,
  APIGatewayProxyHandlerV2,
  LambdaFunctionURLHandler,
} from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLambdaHandler } from '../../src/webhooks/adapters/lambda.js';
import type { ListenerContext } from '../../src/webhooks/receive/events.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { messageAdd } from '../support/deliveries.js';
import { settle } from '../support/handler.js';
import { albEvent, functionUrlEvent, httpApiEvent, restEvent } from '../support/lambda-events.js';

/** A secret with every character a query must escape. */
const SECRET = 'a+b/c=d&e';
const ENCODED = encodeURIComponent(SECRET);

function receiving(options: ConstructorParameters<typeof WebhookHandler>[0] = {}) {
  const hooks = new WebhookHandler({ secret: SECRET, ...options });
  const seen: ListenerContext[] = [];
  hooks.on('message.add', (_event, context) => void seen.push(context));
  hooks.on('error', () => {});
  return { hooks, seen, handler: createLambdaHandler(hooks) };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('createLambdaHandler: each event source AWS sends', () => {
  const body = { body: messageAdd() };
  const cases = [
    ['API Gateway REST (1.0)', restEvent('/hooks/acme', { account: '7', secret: SECRET }, body)],
    [
      'API Gateway REST, base64 body',
      restEvent('/hooks/acme', { account: '7', secret: SECRET }, { ...body, base64: true }),
    ],
    ['HTTP API (2.0)', httpApiEvent('/hooks/acme', `account=7&secret=${ENCODED}`, body)],
    [
      'Function URL, base64 body',
      functionUrlEvent('/hooks/acme', `account=7&secret=${ENCODED}`, { ...body, base64: true }),
    ],
    ['ALB', albEvent('/hooks/acme', { account: '7', secret: ENCODED }, body)],
    ['ALB, multi-value headers', albEvent('/hooks/acme', { account: '7', secret: ENCODED }, body, true)],
  ] as const;

  for (const [source, event] of cases) {
    it(`${source}: decodes the delivery, checks the secret, gives listeners the path and query`, async () => {
      const { handler, seen } = receiving();
      const result = await handler(event);
      expect(result.statusCode).toBe(200);
      expect(JSON.parse(result.body)).toEqual({ ok: true });
      expect(seen).toEqual([{ url: '/hooks/acme?account=7' }]);
    });
  }

  it('refuses a wrong secret 401, whatever the source', async () => {
    const { handler, seen } = receiving();
    for (const event of [
      restEvent('/hooks', { secret: 'a b/c=d&e' }, body),
      httpApiEvent('/hooks', `secret=${SECRET}`, body), // unescaped: `+` is a space, `&` ends it
      albEvent('/hooks', { secret: SECRET }, body),
    ]) {
      expect((await handler(event)).statusCode).toBe(401);
    }
    expect(seen).toEqual([]);
  });

  it('reads the single-valued query when the multi-valued one came empty', async () => {
    const { handler, seen } = receiving();
    const event = restEvent('/hooks', { account: '7', secret: SECRET }, body);
    event.multiValueQueryStringParameters = {};
    event.multiValueHeaders = {};
    expect((await handler(event)).statusCode).toBe(200);
    expect(seen).toEqual([{ url: '/hooks?account=7' }]);
  });

  it('a body flagged base64 that is not base64: answered, never a rejection', async () => {
    const { handler, seen } = receiving();
    const garbage = httpApiEvent('/hooks', `secret=${ENCODED}`, { body: '!!! not base64 ***' });
    garbage.isBase64Encoded = true;
    expect((await handler(garbage)).statusCode).toBe(400);
    const wrongSecret = httpApiEvent('/hooks', 'secret=no', { body: '%%%' });
    wrongSecret.isBase64Encoded = true;
    expect((await handler(wrongSecret)).statusCode).toBe(401);
    const flaggedText = httpApiEvent('/hooks', `secret=${ENCODED}`, { body: messageAdd() });
    flaggedText.isBase64Encoded = true; // a test harness's mistake: the text is read as it is
    expect((await handler(flaggedText)).statusCode).toBe(200);
    expect(seen).toHaveLength(1);
  });

  it('a base64 body malformed past its first slice is an invalid webhook, not a client gone', async () => {
    const { handler, seen } = receiving();
    const base64 = Buffer.from(messageAdd(undefined, 'x'.repeat(100_000))).toString('base64');
    for (const body of [`${base64.slice(0, 65_536)}!!!!${base64.slice(65_536)}`, `${base64}====`]) {
      const event = httpApiEvent('/hooks', `secret=${ENCODED}`, { body: '' });
      event.body = body;
      event.isBase64Encoded = true;
      const result = await handler(event);
      expect(result.statusCode).toBe(400);
      expect(JSON.parse(result.body)).toEqual({ error: 'invalid_webhook' });
    }
    expect(seen).toEqual([]);
  });

  it('authenticates before it decodes: a 6 MB base64 body without the secret is refused unread', async () => {
    const { handler, seen } = receiving({ maxBodyBytes: 8 * 1024 * 1024 });
    const decode = vi.spyOn(globalThis, 'atob');
    const big = `{"event":"message.add","data":[],"pad":"${'x'.repeat(6 * 1024 * 1024)}"}`;
    for (const event of [
      httpApiEvent('/hooks', 'secret=wrong', { body: big, base64: true }),
      restEvent('/hooks', { secret: 'wrong' }, { body: big, base64: true }),
    ]) {
      expect((await handler(event)).statusCode).toBe(401);
    }
    expect(decode).not.toHaveBeenCalled();
    expect(seen).toEqual([]);
  });

  it('a base64 body is decoded whole, slice by slice, once authenticated (and a line-wrapped one too)', async () => {
    const { handler, seen } = receiving();
    // Several slices, with multi-byte characters across their ends.
    const base64 = (body: string) => Buffer.from(body).toString('base64');
    const wrapped = base64(messageAdd(undefined, 'é'.repeat(70_000))).replace(/.{76}/g, '$&\n');
    for (const encoded of [base64(messageAdd(undefined, 'é'.repeat(70_000))), wrapped]) {
      const event = httpApiEvent('/hooks', `secret=${ENCODED}`, { body: '' });
      event.body = encoded;
      event.isBase64Encoded = true;
      expect((await handler(event)).statusCode).toBe(200);
    }
    expect(seen).toHaveLength(2);
  });

  it('answers an event that is not an HTTP request 405, never a throw', async () => {
    const { handler } = receiving();
    const result = await handler({ Records: [] } as never);
    expect(result.statusCode).toBe(405);
  });
});

describe('createLambdaHandler: the answer in the shape of its source', () => {
  const body = { body: messageAdd() };

  it('an ALB gets statusDescription; headers as the event had them', async () => {
    const { handler } = receiving();
    const single = await handler(albEvent('/hooks', { secret: ENCODED }, body));
    expect(single).toMatchObject({ statusCode: 200, statusDescription: '200 OK', isBase64Encoded: false });
    expect(single.headers?.['content-type']).toBe('application/json');
    expect(single.multiValueHeaders).toBeUndefined();
    const multi = await handler(albEvent('/hooks', { secret: 'wrong' }, body, true));
    expect(multi).toMatchObject({ statusCode: 401, statusDescription: '401 Unauthorized' });
    expect(multi.multiValueHeaders?.['content-type']).toEqual(['application/json']);
    expect(multi.headers).toBeUndefined();
  });

  it('API Gateway gets no statusDescription, multiValueHeaders for REST, headers for 2.0', async () => {
    const { handler } = receiving();
    const rest = await handler(restEvent('/hooks', { secret: SECRET }, body));
    expect(rest.statusDescription).toBeUndefined();
    expect(rest.multiValueHeaders?.['content-type']).toEqual(['application/json']);
    const v2 = await handler(httpApiEvent('/hooks', `secret=${ENCODED}`, body));
    expect(v2.headers?.['content-type']).toBe('application/json');
  });

  it('a CRM reply is the body, as text', async () => {
    const { hooks, handler } = receiving();
    hooks.respond('crm_entities.contact_add', () => ({ id: 'crm-1', name: 'Ann' }));
    const contactAdd = JSON.stringify({
      event: 'crm_entities.contact_add',
      data: [{ chat_type: 'whatsapp', chat_id: '79001234567', name: 'Ann' }],
      meta: { idempotency_key: crypto.randomUUID() },
    });
    const result = await handler(httpApiEvent('/hooks', `secret=${ENCODED}`, { body: contactAdd }));
    expect(result).toMatchObject({ statusCode: 200, isBase64Encoded: false });
    expect(JSON.parse(result.body)).toMatchObject({ id: 'crm-1', name: 'Ann' });
  });
});

/**
 * A handler whose 'message.add' listener waits for `release`, and the invocation of one delivery
 * (`delivery`) with whether its promise resolved yet.
 */
function gatedInvocation(options: ConstructorParameters<typeof WebhookHandler>[0], delivery = messageAdd()) {
  const { handler, hooks } = receiving(options);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const state = { finished: false, resolved: false };
  hooks.on('message.add', async () => {
    await gate;
    state.finished = true;
  });
  const result = handler(httpApiEvent('/hooks', `secret=${ENCODED}`, { body: delivery })).then((r) => {
    state.resolved = true;
    return r;
  });
  return { handler, release, state, result };
}

describe('createLambdaHandler: nothing runs after the function returns', () => {
  it("resolves only after 'background' listeners finished", async () => {
    const { release, state, result } = gatedInvocation({ dispatch: 'background' });
    await settle();
    await settle();
    expect(state.resolved).toBe(false); // the listener still waits: Lambda must not freeze yet
    release();
    expect((await result).statusCode).toBe(200);
    expect(state.finished).toBe(true);
  });

  it("resolves only after an 'await' listener that outlived replyTimeoutMs finished", async () => {
    const delivery = messageAdd();
    const { handler, release, state, result } = gatedInvocation(
      { dispatch: 'await', replyTimeoutMs: 20 },
      delivery,
    );
    await new Promise((resolve) => setTimeout(resolve, 60)); // past the answer's deadline
    expect(state.resolved).toBe(false); // the listener still runs: Lambda must not freeze it mid-way
    release();
    expect((await result).statusCode).toBe(500); // answered late, as failed: the service sends it again
    expect(state.finished).toBe(true);
    const again = await handler(httpApiEvent('/hooks', `secret=${ENCODED}`, { body: delivery }));
    expect(JSON.parse(again.body)).toEqual({ ok: true, duplicate: true }); // the key was settled before the return
  });

  it('builds the handler on first use from a function', async () => {
    let built = 0;
    const handler = createLambdaHandler(() => {
      built++;
      return new WebhookHandler({ secret: SECRET });
    });
    expect(built).toBe(0);
    await handler(httpApiEvent('/hooks', `secret=${ENCODED}`, { body: messageAdd() }));
    await handler(httpApiEvent('/hooks', `secret=${ENCODED}`, { body: messageAdd() }));
    expect(built).toBe(1);
  });
});

describe('createLambdaHandler fits the handler types of @types/aws-lambda', () => {
  it('compiles as an API Gateway, HTTP API, Function URL and ALB handler', () => {
    const handler = createLambdaHandler(new WebhookHandler({ secret: SECRET }));
    const rest: APIGatewayProxyHandler = handler;
    const v2: APIGatewayProxyHandlerV2 = handler;
    const url: LambdaFunctionURLHandler = handler;
    const alb: ALBHandler = handler;
    expect([rest, v2, url, alb].every((h) => typeof h === 'function')).toBe(true);
  });
});
