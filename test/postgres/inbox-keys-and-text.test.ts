// What the inbox keeps (DESIGN: What holds under a fleet's ordinary trouble): a delivery whose text
// jsonb refuses (U+0000, half of an emoji) is stored and processed like any other; a keyless CRM
// request repeated after its derived key expired is a new request for the inbox too, while a
// delivery's own idempotency key still refuses a late repeat. On PGlite and a real PostgreSQL
// through pg and postgres.js.
import { describe, expect, it } from 'vitest';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { fixture } from '../support/fixtures.js';
import { postgresTargets, sqlOn, until } from '../support/postgres-targets.js';
import { messageAdd, post, storeWithMessages } from './inbox-suite.js';

/** A v2 contact_add without meta.idempotency_key: the handler derives its key from its body. */
const keylessContactAdd = () => {
  const body = fixture('v2', 'crm_entities.contact_add') as { meta: Record<string, unknown> };
  const { idempotency_key: _, ...meta } = body.meta;
  return { ...body, meta };
};

for (const target of postgresTargets()) {
  describe(`what the inbox keeps, on ${target.name}`, () => {
    const suite = storeWithMessages(target);
    const handler = () => {
      const hooks = new WebhookHandler({
        secret: 'hook-secret',
        dedupe: suite.opened.store.dedupe,
        dispatch: suite.opened.store.inbox,
      });
      hooks.on('error', () => {});
      return hooks;
    };
    const inbox = () =>
      sqlOn(suite.opened.db, `SELECT key, state FROM "${suite.opened.schema}".inbox ORDER BY id`);
    const allDone = async () => (await inbox()).every((row) => row.state === 'done');

    it('stores a text holding U+0000 or a lone surrogate, which jsonb refuses, and the listener gets it whole', async () => {
      const hooks = handler();
      const heard: string[] = [];
      hooks.on('message.add', ({ data }) => void heard.push(String(data[0]?.text)));
      const texts = ['before\u0000after', 'half an emoji \ud83d', 'plain'];
      for (const [i, text] of texts.entries()) {
        expect((await hooks.handle(post(messageAdd(`k-${i}`, `chat-${i}`, text)))).status).toBe(200);
      }
      const worker = suite.opened.store.inbox.work(hooks, { pollIntervalMs: 10 });
      try {
        await until(allDone);
      } finally {
        await worker.stop();
      }
      expect(heard.sort()).toEqual([...texts].sort());
    });

    it('a keyless CRM request repeated after its derived key expired reaches the listeners again; within it, never', async () => {
      const hooks = handler();
      let contacts = 0;
      hooks.respond('crm_entities.contact_add', () => ({ id: `c${++contacts}`, name: 'Alice' }));
      let heard = 0;
      hooks.on('crm_entities.contact_add', () => void heard++);
      const body = keylessContactAdd();
      const reply = async () => JSON.parse(String((await hooks.handle(post(body))).body));
      const worker = suite.opened.store.inbox.work(hooks, { pollIntervalMs: 10 });
      try {
        expect(await reply()).toEqual({ id: 'c1', name: 'Alice' });
        await until(() => heard === 1);
        expect(await reply()).toEqual({ id: 'c1', name: 'Alice' }); // the service's retry
        // Ten minutes later the handler has forgotten the derived key: a new request.
        const s = `"${suite.opened.schema}"`;
        await sqlOn(suite.opened.db, `UPDATE ${s}.dedupe SET expires_at = now() - interval '1 second'`);
        await sqlOn(suite.opened.db, `UPDATE ${s}.inbox SET created_at = now() - interval '11 minutes'`);
        expect(await reply()).toEqual({ id: 'c2', name: 'Alice' });
        await until(() => heard === 2);
        await until(allDone);
      } finally {
        await worker.stop();
      }
      expect(heard).toBe(2);
    });

    it("a delivery's own idempotency key still refuses a repeat after the handler forgot it", async () => {
      const hooks = handler();
      const body = messageAdd('k-own', 'chat-own', 'once');
      expect((await hooks.handle(post(body))).status).toBe(200);
      const s = `"${suite.opened.schema}"`;
      await sqlOn(suite.opened.db, `UPDATE ${s}.dedupe SET expires_at = now() - interval '1 second'`);
      await sqlOn(suite.opened.db, `UPDATE ${s}.inbox SET created_at = now() - interval '2 days'`);
      expect((await hooks.handle(post(body))).status).toBe(200);
      expect(await inbox()).toHaveLength(1);
    });
  });
}
