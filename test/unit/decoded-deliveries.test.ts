// The registry of decoded deliveries that channels.connect listens to. A process may hold two
// copies of the SDK (the client imported as ESM and the webhooks required as CommonJS, or two
// installed versions): the flow must still hear the deliveries the other copy's handler decodes.
import { describe, expect, it, vi } from 'vitest';

type Registry = typeof import('../../src/internal/decoded-deliveries.js');
const freshCopy = async (): Promise<Registry> => {
  vi.resetModules();
  return import('../../src/internal/decoded-deliveries.js');
};

describe('decoded deliveries', () => {
  it('a watcher hears what the same handler decodes, until it stops', async () => {
    const { watchDecoded, notifyDecoded } = await freshCopy();
    const handler = {};
    const heard: unknown[] = [];
    const stop = watchDecoded(handler, (webhook) => heard.push(webhook));
    notifyDecoded(handler, 'one', () => {});
    notifyDecoded({}, 'other handler', () => {});
    stop();
    notifyDecoded(handler, 'after stop', () => {});
    expect(heard).toEqual(['one']);
  });

  it('a watcher of one copy of the SDK hears a handler of another copy (ESM client, CJS webhooks)', async () => {
    const client = await freshCopy();
    const webhooks = await freshCopy();
    expect(webhooks).not.toBe(client);
    const handler = {};
    const heard: unknown[] = [];
    const stop = client.watchDecoded(handler, (webhook) => heard.push(webhook));
    webhooks.notifyDecoded(handler, 'qr', () => {});
    stop();
    expect(heard).toEqual(['qr']);
  });
});
