// A keyless CRM request on a fleet: two handlers share redisDedupeStore on a real redis-server. The
// key derived from the request's kind and body makes the service's retry, whichever instance it
// reaches, get the first reply: one CRM entity however the dispatch failed.
import { describe, expect, it, vi } from 'vitest';
import { redisDedupeStore } from '../../src/redis.js';
import type { DispatchMode } from '../../src/webhooks/receive/options.js';
import { keylessContactAdd, post } from '../support/deliveries.js';
import { fixture } from '../support/fixtures.js';
import { collecting, HOOK_URL } from '../support/handler.js';
import { CLIENTS, connectClient, skipRedis } from '../support/redis-clients.js';
import { useRedisTarget } from '../support/redis-target.js';

/** A v3 createContact, made unique per test. */
function createContact(name: string): string {
  const body = structuredClone(fixture('v3', 'createContact')) as { createContact: { name: string } };
  body.createContact.name = name;
  return JSON.stringify(body);
}

describe.skipIf(skipRedis)('a keyless CRM request on two handlers sharing redisDedupeStore', () => {
  const target = useRedisTarget('single');

  describe.each(CLIENTS)('with %s', (kind) => {
    /** Two handlers, each on its own client of the one Redis, with `dispatch`; the responder counts. */
    async function fleet(dispatch: (failOnce: () => void) => DispatchMode) {
      const clients = await Promise.all([connectClient(kind, target.url), connectClient(kind, target.url)]);
      let created = 0;
      let failures = 1;
      const failOnce = () => {
        if (failures-- > 0) throw new Error('down for a moment');
      };
      const handlers = clients.map(({ redis }) => {
        const { hooks } = collecting({ dispatch: dispatch(failOnce), dedupe: redisDedupeStore(redis) });
        hooks.respond('crm_entities.contact_add', () => ({ id: `contact-${++created}`, name: 'A' }));
        hooks.respond('v3.createContact', () => ({ id: `contact-${++created}` }));
        return hooks;
      });
      const close = () => Promise.all(clients.map((c) => c.close()));
      return { handlers, failOnce, created: () => created, close };
    }

    it("'await', a listener fails once: 500 on one instance, the retry on the other gets contact-1", async () => {
      const { handlers, failOnce, created, close } = await fleet(() => 'await');
      try {
        const listener = vi.fn(failOnce);
        for (const hooks of handlers) hooks.on('crm_entities.contact_add', listener);
        const body = keylessContactAdd(`await-${kind}`);
        const first = await handlers[0]!.handle(post(body, HOOK_URL));
        const retry = await handlers[1]!.handle(post(body, HOOK_URL));
        expect([first.status, retry.status]).toEqual([500, 200]);
        expect(JSON.parse(retry.body).id).toBe('contact-1');
        expect([created(), listener.mock.calls.length]).toEqual([1, 2]);
      } finally {
        await close();
      }
    });

    it('a queue function rejects once: 503 on one instance, the retry on the other is queued with contact-1', async () => {
      const queued: unknown[] = [];
      const { handlers, created, close } = await fleet((failOnce) => async (webhook) => {
        failOnce();
        queued.push(webhook);
      });
      try {
        const body = createContact(`queue-${kind}`);
        const first = await handlers[0]!.handle(post(body, HOOK_URL));
        const retry = await handlers[1]!.handle(post(body, HOOK_URL));
        expect([first.status, retry.status]).toEqual([503, 200]);
        expect(JSON.parse(retry.body)).toEqual({ id: 'contact-1' });
        expect([created(), queued.length]).toEqual([1, 1]);
      } finally {
        await close();
      }
    });
  });
});
