// The README's quick starts, run as written against the fake gateway.
import { describe, expect, it } from 'vitest';
import { BLOCK_RUN_TIMEOUT_MS, useGuide, WEBHOOK_SECRET } from './guide.js';

const guide = useGuide('README.md', { gateway: true });

describe('README.md', () => {
  it('the two quick starts: a send accepted, then a receiver subscribed that hears its echo and its delivery', {
    timeout: BLOCK_RUN_TIMEOUT_MS,
  }, async () => {
    const { code, stdout, stderr, port } = await guide
      .start(['Quick start: send a message', 'Quick start: receive webhooks, and hear how a message went'])
      .then(async (blocks) => {
        await blocks.evaluated;
        return { ...(await blocks.stop()), port: blocks.port };
      });
    expect([code, stderr]).toEqual([0, '']);
    const accepted = /^accepted (\S+)$/m.exec(stdout)?.[1];
    expect(accepted).toBeDefined();
    const sent = [...guide.gateway.messages.values()].filter((m) => m.body.text === 'Your order has shipped');
    expect(sent.map((m) => m.request_id)).toContain(accepted);
    // The receiver's listener heard the outbound echo; waitFor printed the delivered status.
    expect(stdout).toContain('outbound Your order has shipped');
    expect(stdout).toMatch(/status: 'delivered'/);
    expect([...guide.gateway.subscriptions.values()].map((s) => [s.event, s.url]).sort()).toEqual([
      ['message.add', `http://127.0.0.1:${port}/hooks?secret=${WEBHOOK_SECRET}`],
      ['message.status_update', `http://127.0.0.1:${port}/hooks?secret=${WEBHOOK_SECRET}`],
    ]);
  });

  guide.itRanEveryMarkedBlock();
});
