// The bin's local receiver (src/cli/receiver.ts) against the fake gateway: what it subscribes is
// removed whatever happens to the answers.
import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver } from '../../src/cli/receiver.js';
import { GatewayClient } from '../../src/client.js';
import { createFakeGateway, type FakeGateway } from '../../src/testing/fake-gateway.js';

describe('startReceiver', () => {
  let gateway: FakeGateway;
  afterEach(async () => {
    await gateway.close();
  });

  it('removes its subscriptions when the answer to the subscribing POST is lost (the service made them)', async () => {
    gateway = await createFakeGateway();
    const options = { baseUrl: gateway.url, token: gateway.token, maxRetries: 0, logLevel: 'off' } as const;
    const lossy = new GatewayClient({
      ...options,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        const answer = await fetch(request.clone());
        if (request.method === 'POST' && new URL(request.url).pathname === '/v2/webhooks')
          throw new TypeError('fetch failed (the connection dropped after the service answered)');
        return answer;
      },
    });
    await expect(startReceiver({ client: lossy, port: 0, events: ['channel.qr_update'] })).rejects.toThrow();
    expect(await new GatewayClient(options).webhooks.list()).toEqual([]);
  });
});
