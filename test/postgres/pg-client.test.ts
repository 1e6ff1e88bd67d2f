// A lone node-postgres Client (not a Pool): one connection, so a statement sent while a
// transaction of the store is open on it would run inside that transaction.
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postgresStore } from '../../src/postgres/store.js';
import { buildWebhook } from '../../src/testing/build-webhook.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { HOOK_URL } from '../support/handler.js';
import { freshSchema, postgresTargets, until } from '../support/postgres-targets.js';

const messageAdd = (key: string, chat: string) =>
  buildWebhook('message.add', {
    meta: { idempotency_key: key },
    data: [{ chat_id: chat, channel_id: 'ch-1', text: key }],
  } as never);

const post = (body: unknown) => ({
  method: 'POST',
  url: HOOK_URL,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

for (const target of postgresTargets({ pglite: false }).filter((t) => t.name === 'pg')) {
  describe('postgresStore on a lone pg Client', () => {
    let client: pg.Client;
    beforeEach(async () => {
      client = new pg.Client({ connectionString: target.url() });
      await client.connect();
    });
    afterEach(async () => client.end());

    it("a delivery stored while a worker's listener fails is kept: the store's statements wait for the open transaction", async () => {
      const store = postgresStore(client, { schema: freshSchema() });
      await store.migrate();
      const hooks = new WebhookHandler({ secret: 'hook-secret', dispatch: store.inbox });
      hooks.on('error', () => {});
      let entered: () => void = () => {};
      const inside = new Promise<void>((resolve) => {
        entered = resolve;
      });
      let letGo: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        letGo = resolve;
      });
      let failures = 0;
      hooks.on('message.add', async () => {
        if (failures > 0) return;
        failures++;
        entered();
        await gate;
        throw new Error('listener failed');
      });
      expect((await hooks.handle(post(messageAdd('a', 'chat-1')))).status).toBe(200);
      const worker = store.inbox.work(hooks, { pollIntervalMs: 20 });
      await inside;
      const storing = hooks.handle(post(messageAdd('b', 'chat-2')));
      await new Promise((resolve) => setTimeout(resolve, 100));
      letGo();
      expect((await storing).status).toBe(200);
      await until(async () => {
        const { rows } = await client.query(
          `SELECT count(*)::int AS n FROM "${store.schema}".inbox WHERE state = 'done'`,
        );
        return rows[0].n >= 1;
      });
      await worker.stop();
      const { rows } = await client.query(`SELECT key FROM "${store.schema}".inbox ORDER BY key`);
      expect(rows.map((row) => row.key)).toEqual(['a', 'b']);
    });
  });
}
