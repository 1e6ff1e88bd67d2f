// A worker started from a listener (lazily, on the first delivery a process hears): its loops take
// transactions of their own, never the listener's, which ends with its delivery. Had they joined
// it, every claim after that would fail ("used after its transaction ended") and the worker would
// never take a delivery again. On PGlite, pg and postgres.js.
import { describe, expect, it } from 'vitest';
import type { InboxWorker } from '../../src/postgres/inbox-worker.js';
import { postgresStore } from '../../src/postgres/store.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { freshSchema, PGLITE_START_MS, postgresTargets, until } from '../support/postgres-targets.js';
import { messageAdd, post } from './inbox-suite.js';

for (const target of postgresTargets()) {
  describe(`a worker started from a listener on ${target.name}`, () => {
    it(
      'takes the deliveries stored after that listener ended',
      async () => {
        const { db, close } = await target.open();
        const store = postgresStore(db, { schema: freshSchema() });
        await store.migrate();
        const hooks = new WebhookHandler({ secret: 'hook-secret', dispatch: store.inbox });
        const heard: string[] = [];
        const errors: unknown[] = [];
        let second: InboxWorker | undefined;
        hooks.on('message.add', async ({ data }) => {
          heard.push(String(data[0]?.text));
          second ??= store.inbox.work(hooks, { pollIntervalMs: 5, onError: (e) => errors.push(e) });
        });
        const first = store.inbox.work(hooks, { pollIntervalMs: 5 });
        try {
          expect((await hooks.handle(post(messageAdd('k1', 'c1', 'one')))).status).toBe(200);
          await until(() => heard.length === 1);
          await first.stop();
          expect((await hooks.handle(post(messageAdd('k2', 'c2', 'two')))).status).toBe(200);
          await until(() => heard.length === 2 || errors.length > 0, 20_000);
          expect(errors.map(String)).toEqual([]);
          expect(heard).toEqual(['one', 'two']);
        } finally {
          await first.stop();
          await second?.stop();
          await close();
        }
      },
      PGLITE_START_MS + 60_000,
    );
  });
}
