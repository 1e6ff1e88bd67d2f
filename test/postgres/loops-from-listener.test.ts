// An inbox worker or an outbox relay started from a listener (lazily, on the first delivery a
// process hears): its loops take transactions of their own, never the listener's, which ends with
// its delivery. Had they joined it, every claim or send after that would fail ("used after its
// transaction ended") and the loop would never do its work again. On PGlite, pg and postgres.js.
import { describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import type { InboxWorker } from '../../src/postgres/inbox-worker.js';
import type { OutboxRelay } from '../../src/postgres/outbox-relay.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { openStore, PGLITE_START_MS, postgresTargets, until } from '../support/postgres-targets.js';
import { messageAdd, post } from './inbox-suite.js';
import { fakeGatewayForFile, params } from './outbox-fixtures.js';

const { gateway: fake, sends } = fakeGatewayForFile();

for (const target of postgresTargets()) {
  describe(`a worker started from a listener on ${target.name}`, () => {
    it(
      'takes the deliveries stored after that listener ended',
      async () => {
        const { store, close } = await openStore(target);
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

    it(
      'relays the sends committed after that listener ended',
      async () => {
        const { store, close } = await openStore(target);
        const client = new GatewayClient({ baseUrl: fake().url, token: fake().token, logLevel: 'off' });
        const hooks = new WebhookHandler({ secret: 'hook-secret', dispatch: store.inbox });
        const errors: unknown[] = [];
        const sent: string[] = [];
        let relay: OutboxRelay | undefined;
        hooks.on('message.add', async ({ data }, context) => {
          sent.push(await store.outbox.send(store.tx(context), params(String(data[0]?.chat_id))));
          relay ??= store.outbox.relay(client, { pollIntervalMs: 5, onError: (e) => errors.push(e) });
        });
        const worker = store.inbox.work(hooks, { pollIntervalMs: 5 });
        const before = sends();
        try {
          expect((await hooks.handle(post(messageAdd('k1', '79001112233', 'one')))).status).toBe(200);
          const relayed = async () => {
            const rows = await Promise.all(sent.map((id) => store.outbox.get(id)));
            return rows.length === 1 && rows.every((row) => row?.request_id);
          };
          await until(async () => (await relayed()) || errors.length > 0, 20_000);
          expect(errors.map(String)).toEqual([]);
          expect(sends() - before).toBe(1);
        } finally {
          await worker.stop();
          await relay?.stop();
          await close();
        }
      },
      PGLITE_START_MS + 60_000,
    );
  });
}
