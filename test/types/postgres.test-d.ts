// The types of messaging-gateway-sdk/postgres as a user writes against them.
import { describe, expectTypeOf, it } from 'vitest';
import { WebhookHandler } from '../../src/index.js';
import { type OutboxRow, postgresStore, type WebhookQueue } from '../../src/postgres.js';

declare const db: object;

describe('postgresStore', () => {
  it('gives a DedupeStore and a queue the handler takes, and listeners a context with tx', () => {
    const store = postgresStore(db);
    expectTypeOf(store.inbox).toMatchTypeOf<WebhookQueue>();
    const hooks = new WebhookHandler({ secret: 's', dedupe: store.dedupe, dispatch: store.inbox });
    hooks.on('message.add', (_event, context) => expectTypeOf(context.tx).toEqualTypeOf<unknown>());
    hooks.respond('crm_entities.contact_add', async (_event, { tx, signal }) => {
      expectTypeOf(tx).toEqualTypeOf<unknown>();
      expectTypeOf(signal).toEqualTypeOf<AbortSignal>();
      return { id: '1', name: 'A' };
    });
    expectTypeOf(store.outbox.get).returns.resolves.toEqualTypeOf<OutboxRow | undefined>();
    // @ts-expect-error: a send is checked against the spec's params
    void store.outbox.send(db, { channel_id: 'c' });
  });
});
