// A listener's second argument: the delivery's path and query without the secret, so a partner's
// one receiver can route each delivery to the account its subscription URL named.
import { describe, expect, it } from 'vitest';
import { listenerUrl } from '../../src/internal/query.js';
import type { Webhook } from '../../src/webhooks/decode/parse.js';
import type { ListenerContext } from '../../src/webhooks/receive/events.js';
import { messageAdd, post } from '../support/deliveries.js';
import { collecting } from '../support/handler.js';

describe('context.url: path and query, secret removed', () => {
  it.each([
    ['/hooks/acme?secret=hook-secret', '/hooks/acme'],
    ['/hooks?secret=hook-secret&account=7', '/hooks?account=7'],
    ['/hooks?account=7&SECRET=x&Secret=y&b=2', '/hooks?account=7&b=2'],
    ['/hooks?se%63ret=hook-secret&account=7', '/hooks?account=7'],
    ['https://crm.example:8443/hooks/acme?account=7&secret=hook-secret#top', '/hooks/acme?account=7'],
    ['/hooks?secret=hook-secret#secret=hook-secret', '/hooks'],
    ['/hooks#x?secret=hook-secret', '/hooks'],
    ['https://crm.example?secret=hook-secret&account=7', '/?account=7'],
    ['/hooks', '/hooks'],
    ['', ''],
  ])('%s → %s', (url, expected) => {
    expect(listenerUrl(url)).toBe(expected);
  });

  it('every listener of a delivery gets it, the kind listener and the webhook listener alike', async () => {
    const { hooks } = collecting({ dispatch: 'await' });
    const seen: [string, ListenerContext][] = [];
    hooks.on('message.add', (_event, context) => void seen.push(['message.add', context]));
    hooks.on('webhook', (_webhook, context) => void seen.push(['webhook', context]));
    const answer = await hooks.handle(post(messageAdd(), '/hooks/acme?account=7&secret=hook-secret'));
    expect(answer.status).toBe(200);
    expect(seen).toEqual([
      ['message.add', { url: '/hooks/acme?account=7' }],
      ['webhook', { url: '/hooks/acme?account=7' }],
    ]);
  });

  it('a queue function gets it beside the webhook, and receive() passes it on to the listeners', async () => {
    const queued: [Webhook, ListenerContext][] = [];
    const { hooks } = collecting({
      dispatch: async (webhook, context) => void queued.push([webhook, context]),
    });
    const seen: ListenerContext[] = [];
    hooks.on('message.add', (_event, context) => void seen.push(context));
    await hooks.handle(post(messageAdd(), '/hooks/acme?secret=hook-secret'));
    expect(queued.map(([, context]) => context)).toEqual([{ url: '/hooks/acme' }]);
    const [webhook, context] = queued[0] as [Webhook, ListenerContext];
    const job = JSON.parse(JSON.stringify({ webhook, url: context.url })); // as a queue stores it
    await hooks.receive(job.webhook, { url: job.url });
    await hooks.receive(job.webhook, { url: '/hooks/acme?secret=leaked' });
    await hooks.receive(job.webhook);
    expect(seen).toEqual([{ url: '/hooks/acme' }, { url: '/hooks/acme' }, { url: '' }]);
  });
});
