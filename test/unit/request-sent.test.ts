// DESIGN "Errors": every error of a call says whether its request may have reached the service.
// `requestSent` is false only when no byte of it left this process; over real HTTP on 127.0.0.1.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import {
  BadRequestError,
  GatewayAbortError,
  GatewayConnectionError,
  GatewayError,
  GatewayResponseError,
  GatewayTimeoutError,
  GatewayValidationError,
} from '../../src/core/errors.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { answeringOnce, freePort, listen } from '../support/servers.js';

const message = {
  channel_id: 'ch-1',
  recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
  text: 'Hello',
} as const;
const TOKEN = 'request-sent-token-0001';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A server counting what reached it: it answers `answer`, or holds every request for ever. */
async function service(answer?: (res: ServerResponse) => void) {
  const reached: string[] = [];
  const held: ServerResponse[] = [];
  const server = await listen((req, res) => {
    reached.push(`${req.method} ${req.url}`);
    req.resume();
    if (answer) answer(res);
    else held.push(res);
  });
  cleanups.push(async () => {
    for (const res of held) res.destroy();
    await server.close();
  });
  return { url: server.url, reached };
}

const json = (status: number, body: unknown) => (res: ServerResponse) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

const failure = (promise: PromiseLike<unknown>) =>
  Promise.resolve(promise).then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error as GatewayError,
  );

/**
 * A client whose rate limiter allows one start a minute, that start taken: its next call waits.
 * `maxQueue` bounds how many may wait.
 */
async function heldClient(url: string, maxQueue?: number): Promise<GatewayClient> {
  const rateLimit = { requests: 1, intervalMs: 60_000, ...(maxQueue && { maxQueue }) };
  const client = new GatewayClient({ baseUrl: url, token: TOKEN, rateLimit, logLevel: 'off' });
  await client.channels.list();
  return client;
}

/** Resolves once `check` holds: the client's work runs on its own. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('requestSent: false when nothing left this process', () => {
  it('a refused connection (nothing listens on the port)', async () => {
    const client = new GatewayClient({
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      token: TOKEN,
      maxRetries: 0,
      logLevel: 'off',
    });
    const error = await failure(client.messages.send(message));
    expect(error).toBeInstanceOf(GatewayConnectionError);
    expect(error).toMatchObject({ requestSent: false, errorCode: 'ECONNREFUSED' });
    expect(error.toJSON()).toMatchObject({ requestSent: false });
    // the same through withResponse(), and for a GET repeated after each refusal
    const raw = await failure(client.messages.send(message).withResponse());
    expect(raw).toMatchObject({ requestSent: false });
    const list = await failure(client.channels.list({ maxRetries: 2 }));
    expect(list).toMatchObject({ name: 'GatewayConnectionError', requestSent: false });
  });

  it('a token function that throws, and no token at all', async () => {
    const { url, reached } = await service(json(200, { data: { request_id: 'r', chat_id: 'c' } }));
    const throwing = new GatewayClient({
      baseUrl: url,
      token: () => {
        throw new Error('vault unreachable');
      },
      logLevel: 'off',
    });
    expect(await failure(throwing.messages.send(message))).toMatchObject({
      retryable: true,
      requestSent: false,
    });
    const saved = process.env.GATEWAY_TOKEN;
    delete process.env.GATEWAY_TOKEN;
    try {
      const none = new GatewayClient({ baseUrl: url, logLevel: 'off' });
      const error = await failure(none.messages.send(message));
      expect(error.message).toMatch(/No token/);
      expect(error.requestSent).toBe(false);
    } finally {
      if (saved !== undefined) process.env.GATEWAY_TOKEN = saved;
    }
    expect(reached).toEqual([]);
  });

  it('a send that breaks a rule of the spec, and a bad id', async () => {
    const client = new GatewayClient({ baseUrl: 'http://127.0.0.1:9', token: TOKEN, logLevel: 'off' });
    const recipient = { chat_type: 'whatsapp', chat_id: '+7 900' } as const; // digits only
    const invalid = await failure(client.messages.send({ ...message, recipient }));
    expect(invalid).toBeInstanceOf(GatewayValidationError);
    expect(invalid.requestSent).toBe(false);
    expect(await failure(client.channels.get(''))).toMatchObject({ requestSent: false });
  });

  it('the time runs out while the call waits for a full rate limiter', async () => {
    const { url, reached } = await service(json(200, { data: [] }));
    const client = await heldClient(url);
    const error = await failure(client.messages.send(message, { timeout: 100 }));
    expect(error).toBeInstanceOf(GatewayTimeoutError);
    expect(error).toMatchObject({ queued: true, requestSent: false });
    expect(reached).toHaveLength(1);
  });

  it('the rate limiter refuses the call (its queue is full)', async () => {
    const { url } = await service(json(200, { data: [] }));
    const client = await heldClient(url, 1);
    const controller = new AbortController();
    const waiting = client.channels.list({ signal: controller.signal }).catch(() => undefined);
    await until(() => client.pendingRequests === 1);
    const error = await failure(client.messages.send(message));
    expect(error.message).toMatch(/queue is full/);
    expect(error.requestSent).toBe(false);
    controller.abort();
    await waiting;
  });

  it('the caller aborts while the call waits for the rate limiter', async () => {
    const { url, reached } = await service(json(200, { data: [] }));
    const client = await heldClient(url);
    const controller = new AbortController();
    const send = failure(client.messages.send(message, { signal: controller.signal }));
    await until(() => client.pendingRequests === 1);
    controller.abort(new Error('the job was cancelled'));
    const error = await send;
    expect(error).toBeInstanceOf(GatewayAbortError);
    expect(error.requestSent).toBe(false);
    expect(reached).toHaveLength(1);
  });

  it('sendMany: an item the signal stopped before it started, and one that waited in the limiter', async () => {
    const { url, reached } = await service(json(200, { data: { request_id: 'r', chat_id: 'c' } }));
    const client = new GatewayClient({
      baseUrl: url,
      token: TOKEN,
      rateLimit: { requests: 1, intervalMs: 60_000 },
      logLevel: 'off',
    });
    const controller = new AbortController();
    const running = client.messages.sendMany([message, message, message], {
      concurrency: 1,
      signal: controller.signal,
    });
    await until(() => reached.length === 1 && client.pendingRequests === 1);
    controller.abort();
    const [first, second, third] = await running;
    expect(first).toMatchObject({ ok: true });
    expect(second).toMatchObject({ ok: false, error: { name: 'GatewayAbortError', requestSent: false } });
    expect(third).toMatchObject({ ok: false, error: { name: 'GatewayAbortError', requestSent: false } });
  });
});

describe('requestSent: true when the request may have reached the service', () => {
  it('an answer came: an error status, or a 2xx the SDK cannot read', async () => {
    const refused = await service(json(400, { error: 'channelNotFound' }));
    const client = new GatewayClient({ baseUrl: refused.url, token: TOKEN, logLevel: 'off' });
    const error = await failure(client.messages.send(message));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.requestSent).toBe(true);
    expect(await failure(client.messages.send(message).withResponse())).toMatchObject({ requestSent: true });

    const unreadable = await service(json(200, { data: 'not a send result' }));
    const other = new GatewayClient({ baseUrl: unreadable.url, token: TOKEN, logLevel: 'off' });
    const answer = await failure(other.messages.send(message));
    expect(answer).toBeInstanceOf(GatewayResponseError);
    expect(answer).toMatchObject({ accepted: true, requestSent: true });
  });

  it('the request left and no answer came: a time-out, or an abort while it was on its way', async () => {
    const { url, reached } = await service(); // never answers
    const client = new GatewayClient({ baseUrl: url, token: TOKEN, logLevel: 'off', maxRetries: 0 });
    // long enough for the request to leave on a busy machine: it must have left when time runs out
    const timedOut = await failure(client.messages.send(message, { timeout: 2_000 }));
    expect(timedOut).toBeInstanceOf(GatewayTimeoutError);
    expect(timedOut).toMatchObject({ queued: false, requestSent: true });

    const controller = new AbortController();
    const send = failure(client.messages.send(message, { signal: controller.signal }));
    await until(() => reached.length === 2);
    controller.abort();
    const aborted = await send;
    expect(aborted).toBeInstanceOf(GatewayAbortError);
    expect(aborted.requestSent).toBe(true);
  });

  it('a token function that fails after a 401: the first request did reach the service', async () => {
    const { url, reached } = await service(json(401, { error: 'unauthorized' }));
    let asked = 0;
    const client = new GatewayClient({
      baseUrl: url,
      token: () => {
        if (++asked > 1) throw new Error('vault unreachable');
        return TOKEN;
      },
      logLevel: 'off',
    });
    const error = await failure(client.channels.list());
    expect(error.message).toMatch(/function failed/);
    expect(error.requestSent).toBe(true);
    expect(reached).toHaveLength(1);
  });
});

describe('channels.connect says whether the channel may have been created', () => {
  const hooks = () => new WebhookHandler({ secret: 'connect-secret' });

  it('aborted while its create waits for the rate limiter: requestSent false, no channel created', async () => {
    const { url, reached } = await service(json(200, { data: [] }));
    const client = await heldClient(url);
    const controller = new AbortController();
    const connection = client.channels.connect(
      { transport: 'telegram', credentials: { telegram_token: 'bot-token-1' } },
      { hooks: hooks(), signal: controller.signal },
    );
    const steps = failure(
      (async () => {
        for await (const _step of connection);
      })(),
    );
    await until(() => client.pendingRequests === 1);
    controller.abort();
    const error = await steps;
    expect(error).toBeInstanceOf(GatewayAbortError);
    expect(error.requestSent).toBe(false);
    expect(reached).toHaveLength(1);
  });

  it('past timeoutMs while its create had no answer: requestSent true', async () => {
    const { url, reached } = await service(); // never answers
    const client = new GatewayClient({ baseUrl: url, token: TOKEN, logLevel: 'off' });
    const connection = client.channels.connect(
      { transport: 'telegram', credentials: { telegram_token: 'bot-token-1' } },
      { hooks: hooks(), timeoutMs: 2_000 }, // the create has left by then, even on a busy machine
    );
    const error = await failure(
      (async () => {
        for await (const _step of connection);
      })(),
    );
    expect(error).toBeInstanceOf(GatewayTimeoutError);
    expect(error.requestSent).toBe(true);
    expect(reached).toHaveLength(1);
  });

  it('a later step’s call that never left (its poll refused): requestSent true, the channel exists', async () => {
    // the channel is created, then every later call is refused
    const server = await answeringOnce(200, { data: [{ channel_id: 'ch-9', transport: 'telegram' }] });
    const client = new GatewayClient({ baseUrl: server.url, token: TOKEN, logLevel: 'off', maxRetries: 0 });
    const connection = client.channels.connect(
      { transport: 'telegram', credentials: { telegram_token: 'bot-token-1' } },
      { hooks: hooks(), pollIntervalMs: 1_000 },
    );
    const steps: string[] = [];
    const error = await failure(
      (async () => {
        for await (const step of connection) steps.push(step.kind);
      })(),
    );
    expect(steps).toEqual(['created']);
    expect(server.reached()).toBe(1);
    expect(error).toMatchObject({ name: 'GatewayConnectionError', errorCode: 'ECONNREFUSED' });
    // a job queue reading `false` would connect again and create a second channel
    expect(error.requestSent).toBe(true);
  });
});

describe('requestSent on errors that are not about a request of the client', () => {
  it('is true by default, false on a GatewayValidationError', () => {
    expect(new GatewayError('x').requestSent).toBe(true);
    expect(new GatewayValidationError([{ path: ['a'], message: 'm' }]).requestSent).toBe(false);
  });
});
