// A rate-limiter slot granted at the call's deadline: the call never leaves, and says so.
import { describe, expect, it } from 'vitest';
import { GatewayTimeoutError } from '../../src/core/errors.js';
import type { RateLimiterLike } from '../../src/core/rate-limiter.js';
import { GatewayClient } from '../../src/index.js';
import { listen } from '../support/servers.js';

describe('A slot that frees exactly at the deadline', () => {
  it('is given back and the call reported never sent (retryable), with no request made', async () => {
    let requests = 0;
    const server = await listen((_req, res) => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}');
    });
    let released = 0;
    const timeout = 50;
    // Grants in a timer that runs until past the call's deadline, before the call's own timer.
    const lateLimiter: RateLimiterLike = {
      acquire: () =>
        new Promise((resolve) =>
          setTimeout(() => {
            const until = performance.now() + timeout + 10;
            while (performance.now() < until) {} // the process was busy: the slot comes at the deadline
            resolve(() => void released++);
          }, 0),
        ),
      pause: async () => {},
    };
    try {
      const client = new GatewayClient({
        token: 't',
        baseUrl: `${server.url}/v2`,
        rateLimit: lateLimiter,
        timeout,
        maxRetries: 0,
      });
      const error = await client.channels.list().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayTimeoutError);
      expect(error).toMatchObject({ retryable: true, queued: true });
      expect([requests, released]).toEqual([0, 1]);
    } finally {
      await server.close();
    }
  });
});
