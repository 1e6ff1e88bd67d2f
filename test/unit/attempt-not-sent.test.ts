// A time-out before the request is handed to fetch means it never left: the call says so
// (retryable, even for a POST). Its own file: the first call of a process loads the HTTP client,
// and the attempt's time runs out while it loads, before any fetch.
import { describe, expect, it } from 'vitest';
import { GatewayTimeoutError } from '../../src/core/errors.js';
import { GatewayClient } from '../../src/index.js';
import { listen } from '../support/servers.js';

describe('A time-out before the request is handed to fetch', () => {
  it('is reported never sent (retryable, queued) for a POST, and no request is made', async () => {
    let requests = 0;
    const server = await listen((_req, res) => {
      requests++;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"data":{"request_id":"r","chat_id":"c"}}');
    });
    try {
      const client = new GatewayClient({
        token: 't-1234',
        baseUrl: server.url,
        rateLimit: false,
        timeout: 1,
        maxRetries: 0,
      });
      const send = {
        channel_id: 'ch',
        recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
        text: 'hi',
      } as const;
      const error = await client.messages.send(send).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayTimeoutError);
      expect(error).toMatchObject({ retryable: true, queued: true });
      expect(requests).toBe(0);
    } finally {
      await server.close();
    }
  });
});
