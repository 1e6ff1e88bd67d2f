// A listener stuck in a statement (waiting on a lock, a slow query) past the worker's timeoutMs:
// the attempt is cut at timeoutMs and the worker goes on with other chats, as the docs promise.
import { describe, expect, it } from 'vitest';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { postgresTargets, sqlOn, until } from '../support/postgres-targets.js';
import { messageAdd, post, storeWithMessages } from './inbox-suite.js';

for (const target of postgresTargets({ pglite: false })) {
  describe(`a listener stuck in a statement on ${target.name}`, () => {
    const suite = storeWithMessages(target);

    it('is cut at timeoutMs: the worker goes on with the next chat', async () => {
      const { store } = suite.opened;
      const hooks = new WebhookHandler({ secret: 'hook-secret', dispatch: store.inbox });
      const errors: unknown[] = [];
      hooks.on('error', (e) => void errors.push(e));
      hooks.on('message.add', async ({ data }, context) => {
        const tx = store.tx(context);
        if (data[0]?.text === 'stuck') await sqlOn(tx, 'SELECT pg_sleep(8)');
        await sqlOn(tx, `INSERT INTO ${suite.messages} (text) VALUES ($1)`, [data[0]?.text]);
      });
      await hooks.handle(post(messageAdd('s', 'chat-s', 'stuck')));
      await hooks.handle(post(messageAdd('n', 'chat-n', 'next')));
      const worker = store.inbox.work(hooks, { pollIntervalMs: 10, batchSize: 1, timeoutMs: 200 });
      try {
        await until(
          async () => (await sqlOn(suite.opened.db, `SELECT 1 FROM ${suite.messages}`)).length === 1,
        );
        // the next message got in while the stuck one (its 8 s sleep cut at 200 ms) waits its turn again
        expect(await sqlOn(suite.opened.db, `SELECT text FROM ${suite.messages}`)).toEqual([
          { text: 'next' },
        ]);
        expect(await store.inbox.get('1')).toMatchObject({ state: 'pending', attempts: 1 });
      } finally {
        await worker.stop();
      }
    }, 30_000);
  });
}
