// A partner's accounts on a fleet: each derived client keeps to its own account's window through a
// redisRateLimiter keyed by the account, so one busy account never holds back another.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import { GatewayTimeoutError } from '../../src/core/errors.js';
import { redisRateLimiter } from '../../src/redis.js';
import { connectClient, skipRedis } from '../support/redis-clients.js';
import { useRedisTarget } from '../support/redis-target.js';
import { listen } from '../support/servers.js';

describe.skipIf(skipRedis)('withOptions and redisRateLimiter keyed by account', () => {
  const target = useRedisTarget('single');
  let redis: Awaited<ReturnType<typeof connectClient>>;
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    redis = await connectClient('ioredis', target.url);
    server = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}');
    });
  });
  afterAll(async () => {
    await redis?.close();
    await server?.close();
  });

  it("two accounts' clients do not share a window; one account's clients do", async () => {
    const limits = { requests: 2, intervalMs: 60_000 };
    const run = crypto.randomUUID(); // keys of this run only
    const perAccount = (account: string) =>
      redisRateLimiter(redis.redis, { key: `${run}:${account}`, ...limits });
    const base = new GatewayClient({ baseUrl: server.url, token: 'partner' });
    const acme = base.withOptions({ token: 'acme', rateLimit: perAccount('acme') });
    const globex = base.withOptions({ token: 'globex', rateLimit: perAccount('globex') });
    const acmeElsewhere = base.withOptions({ token: 'acme', rateLimit: perAccount('acme') }); // another instance

    await Promise.all([acme.channels.list(), acme.channels.list()]); // acme's window is full
    await expect(Promise.all([globex.channels.list(), globex.channels.list()])).resolves.toHaveLength(2);
    await expect(acmeElsewhere.channels.list({ timeout: 100 })).rejects.toBeInstanceOf(GatewayTimeoutError);
  });
});
