// What the inbox suites share: a store with a messages table per test, and the deliveries they post.
import { afterEach, beforeEach } from 'vitest';
import { buildWebhook } from '../../src/testing/build-webhook.js';
import { HOOK_URL } from '../support/handler.js';
import { openStore, PGLITE_START_MS, type PostgresTarget, sqlOn } from '../support/postgres-targets.js';

/** A POST of `body` to the handler's address, with its secret. */
export const post = (body: unknown) => ({
  method: 'POST',
  url: HOOK_URL,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** A message.add of `chat` saying `text`, with the idempotency key `key`. */
export const messageAdd = (key: string, chat: string, text: string) =>
  buildWebhook('message.add', {
    meta: { idempotency_key: key },
    data: [{ chat_id: chat, channel_id: 'ch-1', text }],
  } as never);

/** For each test: a migrated store on `target` and a `messages` table in its schema (closed after). */
export function storeWithMessages(target: PostgresTarget) {
  const suite = {} as { opened: Awaited<ReturnType<typeof openStore>>; messages: string };
  beforeEach(async () => {
    suite.opened = await openStore(target);
    suite.messages = `"${suite.opened.schema}".messages`;
    await sqlOn(
      suite.opened.db,
      `CREATE TABLE ${suite.messages} (id serial PRIMARY KEY, chat text, text text)`,
    );
  }, PGLITE_START_MS);
  afterEach(async () => suite.opened.close());
  return suite;
}
