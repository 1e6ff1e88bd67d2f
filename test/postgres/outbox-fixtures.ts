// What the outbox suites share: a send, and the fake gateway the relays send to (one per file,
// started before its tests and closed after them).
import { afterAll, beforeAll } from 'vitest';
import { createFakeGateway, type FakeGateway } from '../../src/testing/fake-gateway.js';

/** A valid send to a whatsapp chat of the fake's channel `ch-1`. */
export const params = (chat_id: string) =>
  ({
    channel_id: 'ch-1',
    recipient: { chat_type: 'whatsapp', chat_id },
    text: 'Your order has shipped',
  }) as const;

/**
 * Registers the file's fake gateway (no statuses of its own: the tests send them) and returns
 * how to reach it and how many sends it has received.
 */
export function fakeGatewayForFile() {
  let gateway: FakeGateway | undefined;
  beforeAll(async () => {
    gateway = await createFakeGateway({
      stepMs: 1,
      autoStatuses: false,
      channels: [{ channel_id: 'ch-1', transport: 'whatsapp' }],
    });
  });
  afterAll(async () => gateway?.close());
  const running = () => gateway as FakeGateway;
  return {
    gateway: running,
    sends: () => running().requests.filter((r) => r.method === 'POST' && r.path === '/v2/messages').length,
  };
}
