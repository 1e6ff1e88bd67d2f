// store.inbox as the handler's dispatch and its workers (DESIGN: The CRM's own database), on
// PGlite and on a real PostgreSQL through pg and postgres.js, and through each ORM (Prisma,
// Drizzle, Kysely, Knex).
import { describe, expect, it } from 'vitest';
import type { GatewayError } from '../../src/core/errors.js';
import { backoffAfter } from '../../src/postgres/inbox-batch.js';
import { arrayLiteral } from '../../src/postgres/inbox-claim.js';
import { InboxDeliveryError } from '../../src/postgres/inbox-errors.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { postgresTargets, serverLimitsOf, sqlOn, until } from '../support/postgres-targets.js';
import { messageAdd, post, storeWithMessages } from './inbox-suite.js';

for (const target of postgresTargets({ orms: true })) {
  describe(`store.inbox on ${target.name}`, () => {
    const suite = storeWithMessages(target);

    const inbox = () => suite.opened.store.inbox;
    const handler = () =>
      new WebhookHandler({ secret: 'hook-secret', dedupe: suite.opened.store.dedupe, dispatch: inbox() });
    const rows = async () =>
      sqlOn(
        suite.opened.db,
        `SELECT id::text AS id, key, state, attempts FROM "${suite.opened.schema}".inbox ORDER BY id`,
      );
    const stored = async () => sqlOn(suite.opened.db, `SELECT chat, text FROM ${suite.messages} ORDER BY id`);

    it('backs off about a second after the first failure, doubling, at most a minute', async () => {
      const waits: number[] = [];
      for (const failed of [1, 2, 3, 7, 8, 20]) {
        const [row] = await sqlOn(
          suite.opened.db,
          `SELECT (extract(epoch FROM ${backoffAfter('$1::int')}) * 1000)::float8 AS ms`,
          [failed],
        );
        waits.push(Number(row?.ms));
      }
      expect(waits).toEqual([1_000, 2_000, 4_000, 60_000, 60_000, 60_000]);
    });

    it('stores the delivery with its key before the 200, once however often it comes', async () => {
      const hooks = handler();
      const listened: unknown[] = [];
      hooks.on('message.add', (event) => void listened.push(event));
      const body = messageAdd('key-a', '79001', 'hi');
      expect((await hooks.handle(post(body))).status).toBe(200);
      expect((await hooks.handle(post(body))).status).toBe(200);
      expect(await rows()).toMatchObject([{ key: 'key-a', state: 'pending', attempts: 0 }]);
      expect(listened).toEqual([]); // the listeners run in a worker
    });

    it('a worker runs the listeners with tx and marks the delivery done in that transaction', async () => {
      const hooks = handler();
      hooks.on('message.add', async ({ data }, context) => {
        const tx = suite.opened.store.tx(context); // the same handle as context.tx, typed for the driver
        expect(tx).toBe(context.tx);
        for (const m of data)
          await sqlOn(tx, `INSERT INTO ${suite.messages} (chat, text) VALUES ($1, $2)`, [m.chat_id, m.text]);
      });
      expect(() => suite.opened.store.tx({})).toThrow(/context has no tx/);
      for (let i = 0; i < 5; i++) await hooks.handle(post(messageAdd(`k-${i}`, `chat-${i % 2}`, `m${i}`)));
      const worker = inbox().work(hooks, { concurrency: 3, pollIntervalMs: 10 });
      await until(async () => (await rows()).every((row) => row.state === 'done'));
      await worker.stop();
      expect((await stored()).map((row) => row.text).sort()).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
    });

    it("a failing listener's writes roll back; the attempt is counted with a backoff; dead after maxAttempts; retry(id) puts it back", async () => {
      const hooks = handler();
      const reported: GatewayError[] = [];
      hooks.on('error', (e) => void (e instanceof InboxDeliveryError && reported.push(e)));
      let fail = true;
      // Each attempt reads the server's clock (its failure comes after) and the delivery's run_at
      // as its claim left it (a claim does not move run_at): the second reads the first's backoff.
      // Read by the attempts themselves, in their own transaction, the figures do not depend on
      // when the test gets to look, on a busy machine, nor on a second connection (PGlite has one).
      const attemptsSaw: { at?: unknown; run_at?: unknown }[] = [];
      hooks.on('message.add', async ({ data }, { tx }) => {
        await sqlOn(tx, `INSERT INTO ${suite.messages} (chat, text) VALUES ($1, $2)`, [
          data[0]?.chat_id,
          data[0]?.text,
        ]);
        const [saw] = await sqlOn(
          tx,
          `SELECT clock_timestamp()::text AS at, run_at::text AS run_at FROM "${suite.opened.schema}".inbox WHERE key = 'k-f'`,
        );
        if (saw) attemptsSaw.push(saw);
        if (fail) throw new Error('CRM down');
      });
      await hooks.handle(post(messageAdd('k-f', 'chat-f', 'once')));
      const onError: GatewayError[] = [];
      const worker = inbox().work(hooks, {
        pollIntervalMs: 10,
        maxAttempts: 2,
        onError: (e) => void onError.push(e),
      });
      await until(() => attemptsSaw.length >= 2);
      // The first failure came after its attempt read the clock, and set run_at a second after
      // itself: at least a second after that reading, and (a failure follows its listener by
      // milliseconds) well under the two seconds of the next backoff.
      const [backoff] = await sqlOn(
        suite.opened.db,
        'SELECT (extract(epoch FROM $1::timestamptz - $2::timestamptz) * 1000)::float8 AS ms',
        [attemptsSaw[1]?.run_at, attemptsSaw[0]?.at],
      );
      expect(Number(backoff?.ms)).toBeGreaterThanOrEqual(1_000);
      expect(Number(backoff?.ms)).toBeLessThan(2_000);
      expect(await stored()).toEqual([]);
      await until(async () => (await rows())[0]?.state === 'dead');
      await until(() => reported.length === 1);
      const id = String((await rows())[0]?.id);
      expect(reported[0]?.message).toContain(`Inbox delivery ${id} is dead after 2 attempts`);
      expect(reported[0]).toMatchObject({ code: 'dead', deliveryId: id, attempts: 2 });
      expect(String((reported[0]?.cause as Error | undefined)?.message)).toContain('CRM down');
      expect(JSON.stringify(reported[0]?.toJSON())).not.toContain('once'); // the message's text
      expect(onError).toEqual([]); // reported on the handler's 'error', once
      expect(reported).toHaveLength(1);
      expect(await stored()).toEqual([]);
      fail = false;
      expect(await inbox().retry(id)).toBe(true);
      await until(async () => (await rows())[0]?.state === 'done');
      await worker.stop();
      expect(await stored()).toEqual([{ chat: 'chat-f', text: 'once' }]);
      expect(reported).toHaveLength(1);
      expect(await inbox().retry(id)).toBe(false);
    });

    it('processes the deliveries of one chat in the order received, across workers', async () => {
      const hooks = handler();
      hooks.on('error', () => {});
      let failedOnce = false;
      hooks.on('message.add', async ({ data }, { tx }) => {
        const m = data[0];
        if (m?.text === 'a0' && !failedOnce) {
          failedOnce = true; // the first of chat a fails once: the rest of chat a wait for it
          throw new Error('transient');
        }
        await sqlOn(tx, `INSERT INTO ${suite.messages} (chat, text) VALUES ($1, $2)`, [m?.chat_id, m?.text]);
      });
      for (let i = 0; i < 6; i++) {
        await hooks.handle(post(messageAdd(`a${i}`, 'a', `a${i}`)));
        await hooks.handle(post(messageAdd(`b${i}`, 'b', `b${i}`)));
      }
      const workers = [
        inbox().work(hooks, { concurrency: 2, pollIntervalMs: 10 }),
        inbox().work(hooks, { concurrency: 2, pollIntervalMs: 10 }),
      ];
      await until(async () => (await stored()).filter((r) => r.chat === 'b').length === 6);
      await sqlOn(suite.opened.db, `UPDATE "${suite.opened.schema}".inbox SET run_at = now()`); // a0's backoff passed
      await until(async () => (await stored()).length === 12);
      await Promise.all(workers.map((w) => w.stop()));
      const texts = (chat: string) =>
        (async () => (await stored()).filter((r) => r.chat === chat).map((r) => r.text))();
      expect(await texts('a')).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'a5']);
      expect(await texts('b')).toEqual(['b0', 'b1', 'b2', 'b3', 'b4', 'b5']);
    });

    it('several workers process each delivery exactly once', async () => {
      const hooks = handler();
      hooks.on('message.add', async ({ data }, { tx }) => {
        await sqlOn(tx, `INSERT INTO ${suite.messages} (chat, text) VALUES ($1, $2)`, [
          data[0]?.chat_id,
          data[0]?.text,
        ]);
      });
      for (let i = 0; i < 40; i++) await hooks.handle(post(messageAdd(`x${i}`, `c${i % 7}`, `t${i}`)));
      const workers = [1, 2, 3].map(() => inbox().work(hooks, { concurrency: 2, pollIntervalMs: 10 }));
      await until(async () => (await stored()).length >= 40);
      await Promise.all(workers.map((w) => w.stop()));
      const texts = (await stored()).map((r) => r.text);
      expect(new Set(texts).size).toBe(40);
      expect(texts.length).toBe(40);
    });

    it('array parameters reach the database whole, quotes, backslashes and nulls included', async () => {
      const values = ['1', 'a "quoted" word', 'back\\slash', null, '{braces}, commas'];
      const [row] = await sqlOn(suite.opened.db, 'SELECT array_to_json($1::text[]) AS a', [
        arrayLiteral(values),
      ]);
      expect(row?.a).toEqual(values);
    });

    it('bounds the batch on the server too: each statement by timeoutMs, and it ends when idle past timeoutMs plus 10 s', async () => {
      const hooks = handler();
      let settings: unknown;
      hooks.on('message.add', async (_event, { tx }) => {
        settings = await serverLimitsOf(tx);
      });
      await hooks.handle(post(messageAdd('k-settings', 'chat', 'hi')));
      const worker = inbox().work(hooks, { pollIntervalMs: 10, timeoutMs: 1_500 });
      await until(() => settings !== undefined);
      await worker.stop();
      expect(settings).toEqual({ statement: '1500ms', idle: '11500ms' });
    });
  });
}
