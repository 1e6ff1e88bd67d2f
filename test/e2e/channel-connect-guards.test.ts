// channels.connect whatever the handler's dispatch, stopped for good by an abort, past a QR that
// cannot be read, and with its options checked before any channel is created.
import { createServer } from 'node:http';
import {
  type ConnectStep,
  GatewayAbortError,
  GatewayClient,
  GatewayValidationError,
} from 'messaging-gateway-sdk';
import { buildWebhook, createFakeGateway, type FakeGateway } from 'messaging-gateway-sdk/testing';
import {
  createNodeMiddleware,
  WebhookHandler,
  type WebhookHandlerOptions,
} from 'messaging-gateway-sdk/webhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const SECRET = 'connect-guard-secret';
let gateway: FakeGateway;
let closers: (() => Promise<void>)[];

beforeEach(async () => {
  closers = [];
  gateway = await createFakeGateway({ stepMs: 1, autoScan: false });
});
afterEach(async () => {
  await gateway.close();
  for (const close of closers) await close();
});

/** A real receiver of the handler's deliveries, subscribed to the channel events. */
async function receiving(client: GatewayClient, options: WebhookHandlerOptions = {}) {
  const hooks = new WebhookHandler({ secret: SECRET, ...options });
  const server = createServer(createNodeMiddleware(hooks));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as { port: number };
  const url = `http://127.0.0.1:${port}/hooks?secret=${SECRET}`;
  await client.webhooks.subscribe(
    (['channel.qr_update', 'channel.status_update'] as const).map((event) => ({ url, event })),
  );
  return hooks;
}

const clientOf = () => new GatewayClient({ baseUrl: gateway.url, token: gateway.token });
const whatsapp = { transport: 'whatsapp', credentials: {} } as const;

describe('channels.connect', () => {
  it('a handler whose dispatch is a queue function still drives the flow: the QR step comes', async () => {
    const client = clientOf();
    const queued: unknown[] = [];
    const hooks = await receiving(client, { dispatch: async (webhook) => void queued.push(webhook) });
    const kinds: string[] = [];
    for await (const step of client.channels.connect(whatsapp, { hooks, timeoutMs: 3000 })) {
      kinds.push(step.kind);
      if (step.kind === 'qr') await gateway.simulate.scan(step.channelId);
    }
    expect(kinds).toEqual(['created', 'qr', 'active']);
    expect(queued.length).toBeGreaterThan(0); // the queue got the deliveries as well
  });

  it('after an abort while the consumer holds a step, no further step is yielded', async () => {
    const client = clientOf();
    const hooks = await receiving(client);
    const controller = new AbortController();
    const iterator = client.channels
      .connect(whatsapp, { hooks, signal: controller.signal })
      [Symbol.asyncIterator]();
    const first = await iterator.next();
    expect((first.value as ConnectStep).kind).toBe('created');
    await gateway.drain(); // the QR is delivered and waits in the flow
    controller.abort(new Error('user left'));
    const stopped = await iterator.next().catch((error: unknown) => error);
    expect(stopped).toBeInstanceOf(GatewayAbortError);
    // The address of the call, full, as every other error of the client gives it.
    const { channelId } = first.value as ConnectStep & { channelId: string };
    expect((stopped as GatewayAbortError).message).toBe(
      `GET ${gateway.url}/v2/channels/${channelId}: aborted by the caller`,
    );
  });

  it('a QR that is not a PNG is reported on the handler and skipped', async () => {
    const client = clientOf();
    const hooks = await receiving(client);
    const errors: Error[] = [];
    hooks.on('error', (error) => void errors.push(error));
    const kinds: string[] = [];
    for await (const step of client.channels.connect(whatsapp, { hooks, timeoutMs: 3000 })) {
      kinds.push(step.kind);
      if (step.kind === 'created') {
        const bad = buildWebhook('channel.qr_update', {
          data: [{ channel_id: step.channelId, qr_code: 'data:image/png;base64,bm90IGEgcG5n' }],
        });
        const answer = await hooks.handle({
          method: 'POST',
          url: `/h?secret=${SECRET}`,
          headers: {},
          body: JSON.stringify(bad),
        });
        expect(answer.status).toBe(200);
      }
      if (step.kind === 'qr') await gateway.simulate.scan(step.channelId);
    }
    expect(kinds).toEqual(['created', 'qr', 'active']);
    expect(errors.map((e) => e.message).join('\n')).toMatch(/qrToPng/);
  });

  it.each([
    ['timeoutMs of 30 days', { timeoutMs: 30 * 24 * 3_600_000 }, 'timeoutMs'],
    ['timeoutMs of 0', { timeoutMs: 0 }, 'timeoutMs'],
    ['pollIntervalMs of 0', { pollIntervalMs: 0 }, 'pollIntervalMs'],
    ['pollIntervalMs under a second', { pollIntervalMs: 999 }, 'pollIntervalMs'],
    ['no hooks (plain JavaScript)', { hooks: undefined }, 'hooks'],
    ['hooks that are a string', { hooks: 'handler' }, 'hooks'],
  ])('%s is a GatewayValidationError before any channel is created', async (_case, options, field) => {
    const client = clientOf();
    const hooks = new WebhookHandler({ secret: SECRET });
    const error = await (async () => {
      for await (const _step of client.channels.connect(whatsapp, { hooks, ...(options as object) })) break;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayValidationError);
    expect((error as GatewayValidationError).message).toContain(field);
    expect(gateway.requests.filter((r) => r.method === 'POST' && r.path === '/v2/channels')).toEqual([]);
  });
});
