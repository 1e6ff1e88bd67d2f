// docs/sending.md run as written: a send followed to its outcome by DeliveryTracker, with the
// reader's receiver (`hooks`) served on 127.0.0.1 and subscribed to the fake gateway.
import { describe, expect, it } from 'vitest';
import { BLOCK_RUN_TIMEOUT_MS, useGuide } from './guide.js';

const guide = useGuide('docs/sending.md', { gateway: true });

describe('docs/sending.md', () => {
  it('following a message to its outcome: waitFor resolves at delivered, then every later status is printed', {
    timeout: BLOCK_RUN_TIMEOUT_MS,
  }, async () => {
    const blocks = await guide.start('Following a message to its outcome', { serveHooks: true });
    await blocks.evaluated;
    const sent = [...guide.gateway.messages.values()].filter((m) => m.body.text === 'Your order has shipped');
    expect(sent).toHaveLength(1);
    const requestId = sent[0]?.request_id;
    await expect.poll(blocks.stdout, { timeout: 30_000 }).toContain(`${requestId} read`);
    // waitFor reached delivered: neither of its catch branches printed.
    expect(blocks.stdout()).not.toMatch(/^(failed:|still)/m);
    const { code, stderr } = await blocks.stop();
    expect([code, stderr]).toEqual([0, '']);
  });

  guide.itRanEveryMarkedBlock();
});
