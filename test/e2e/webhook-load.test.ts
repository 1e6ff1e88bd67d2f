import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createNodeMiddleware } from '../../src/webhooks/adapters/node.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { messageAdd } from '../support/deliveries.js';
import { listen } from '../support/servers.js';

describe('Load on loopback (bounded: 5,000 deliveries)', () => {
  it('dispatches every unique idempotency key exactly once at concurrency 50 with 10 % repeats', {
    timeout: 60_000,
  }, async () => {
    const hooks = new WebhookHandler({ secret: 'load-secret' });
    const calls = new Map<string, number>();
    hooks.on('message.add', async (w) => {
      await new Promise((r) => setImmediate(r)); // listeners run after the answer
      const key = String(w.meta.idempotency_key);
      calls.set(key, (calls.get(key) ?? 0) + 1);
    });
    const server = await listen(createServer(createNodeMiddleware(hooks)));
    const total = 5000;
    const unique = Array.from({ length: total * 0.9 }, (_, i) => `key-${i}`);
    const repeats = Array.from({ length: total * 0.1 }, (_, i) => unique[(i * 7) % unique.length] as string);
    const deliveries = [...unique, ...repeats].sort(() => Math.random() - 0.5);
    const statuses: number[] = [];
    let next = 0;
    const worker = async () => {
      while (next < deliveries.length) {
        const key = deliveries[next++] as string;
        const res = await fetch(`${server.url}/hooks?secret=load-secret`, {
          method: 'POST',
          body: messageAdd(key),
          headers: { 'content-type': 'application/json' },
        });
        await res.arrayBuffer();
        statuses.push(res.status);
      }
    };
    try {
      await Promise.all(Array.from({ length: 50 }, worker));
      await hooks.drain();
    } finally {
      await server.close();
    }
    expect(statuses).toHaveLength(total);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(calls.size).toBe(unique.length);
    expect([...calls.values()].every((n) => n === 1)).toBe(true);
  });
});
