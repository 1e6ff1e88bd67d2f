// A poison delivery dies (DESIGN: The CRM's own database): a listener that never settles is cut
// at the worker's timeoutMs (its transaction rolled back, the attempt failed), tried again after
// its backoff and dead after maxAttempts, reported once on the handler's 'error' as a typed
// InboxDeliveryError, while other chats go on. On PGlite and a real PostgreSQL (pg, postgres.js).
import { describe, expect, it } from 'vitest';
import { GatewayValidationError } from '../../src/core/errors.js';
import { UNDER_WAY } from '../../src/postgres/inbox-claim.js';
import { InboxDeliveryError } from '../../src/postgres/inbox-errors.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { postgresTargets, sqlOn, until } from '../support/postgres-targets.js';
import { messageAdd, post, storeWithMessages } from './inbox-suite.js';

for (const target of postgresTargets()) {
  describe(`a poison delivery on ${target.name}`, () => {
    const suite = storeWithMessages(target);

    const inboxRows = () =>
      sqlOn(
        suite.opened.db,
        `SELECT id::text AS id, key, state, attempts, last_error FROM "${suite.opened.schema}".inbox ORDER BY id`,
      );
    const row = async (key: string) => (await inboxRows()).find((r) => r.key === key);
    const stored = async () =>
      (await sqlOn(suite.opened.db, `SELECT text FROM ${suite.messages} ORDER BY id`)).map((r) => r.text);
    const backoffPassed = () =>
      sqlOn(suite.opened.db, `UPDATE "${suite.opened.schema}".inbox SET run_at = now()`);

    /** A handler whose listener stores the message through tx, and never settles for 'hang'. */
    const handler = (hang: { on: boolean }) => {
      const hooks = new WebhookHandler({
        secret: 'hook-secret',
        dedupe: suite.opened.store.dedupe,
        dispatch: suite.opened.store.inbox,
      });
      const reported: InboxDeliveryError[] = [];
      hooks.on('error', (e) => void (e instanceof InboxDeliveryError && reported.push(e)));
      hooks.on('message.add', async ({ data }, { tx }) => {
        const m = data[0];
        if (m?.text === 'hang' && hang.on) return new Promise<void>(() => {});
        await sqlOn(tx, `INSERT INTO ${suite.messages} (text) VALUES ($1)`, [m?.text]);
      });
      return { hooks, reported };
    };

    it('a listener that never settles is timed out, retried, then dead; other chats go on; retry(id) puts it back', async () => {
      const hang = { on: true };
      const { hooks, reported } = handler(hang);
      await hooks.handle(post(messageAdd('h0', 'h', 'hang')));
      await hooks.handle(post(messageAdd('h1', 'h', 'after the hang')));
      for (let i = 0; i < 3; i++) await hooks.handle(post(messageAdd(`b${i}`, 'b', `b${i}`)));
      const worker = suite.opened.store.inbox.work(hooks, {
        concurrency: 2,
        batchSize: 1,
        pollIntervalMs: 10,
        maxAttempts: 2,
        timeoutMs: 300,
      });
      await until(async () => (await stored()).length === 3);
      // PGlite has one connection, which the hung transaction holds until its time-out.
      if (target.name !== 'pglite') expect(reported).toEqual([]);
      await until(() => reported.length === 1);
      expect(reported[0]).toMatchObject({ code: 'timedOut', attempts: 1, retryable: true });
      const h0 = await row('h0');
      expect(h0).toMatchObject({ state: 'pending', attempts: 1 });
      expect(h0?.last_error).toContain('timeoutMs (300 ms)');
      await backoffPassed();
      await until(async () => (await row('h0'))?.state === 'dead');
      await until(async () => (await stored()).includes('after the hang')); // the chat is free
      await until(() => reported.length === 3);
      expect(reported.map((e) => e.code)).toEqual(['timedOut', 'timedOut', 'dead']);
      expect(reported[2]).toMatchObject({ deliveryId: h0?.id, attempts: 2 });
      expect(reported[2]?.cause).toBeInstanceOf(InboxDeliveryError);
      hang.on = false;
      expect(await suite.opened.store.inbox.retry(String(h0?.id))).toBe(true);
      await until(async () => (await row('h0'))?.state === 'done');
      await worker.stop();
      expect((await stored()).filter((t) => t === 'hang')).toHaveLength(1);
      expect(reported).toHaveLength(3);
    }, 30_000);

    it("a time-out rolls back its batch: the others' attempts are not counted and they run again at once", async () => {
      const { hooks, reported } = handler({ on: true });
      await hooks.handle(post(messageAdd('ok0', 'a', 'first')));
      await hooks.handle(post(messageAdd('h0', 'h', 'hang')));
      await hooks.handle(post(messageAdd('ok1', 'c', 'last')));
      const worker = suite.opened.store.inbox.work(hooks, { pollIntervalMs: 10, timeoutMs: 200 });
      await until(() => reported.length === 1);
      await until(async () => (await row('ok1'))?.state === 'done');
      await worker.stop();
      expect(await row('ok0')).toMatchObject({ state: 'done', attempts: 1 });
      expect(await row('ok1')).toMatchObject({ state: 'done', attempts: 1 });
      expect(await row('h0')).toMatchObject({ state: 'pending', attempts: 1 });
      expect(await stored()).toEqual(['first', 'last']);
    }, 30_000);

    it('a delivery that timed out does not take the same others down again: they run before its next attempt', async () => {
      const { hooks, reported } = handler({ on: true });
      await hooks.handle(post(messageAdd('h0', 'h', 'hang')));
      await hooks.handle(post(messageAdd('ok0', 'a', 'beside the hang')));
      // timeoutMs above the first backoff (as the defaults are): the hung delivery is due again
      // when its time-out ends.
      const worker = suite.opened.store.inbox.work(hooks, {
        pollIntervalMs: 10,
        timeoutMs: 1_200,
        maxAttempts: 3,
      });
      try {
        await until(async () => (await row('ok0'))?.state === 'done');
        expect(await row('h0')).toMatchObject({ state: 'pending', attempts: 1 });
        expect(reported.map((e) => e.code)).toEqual(['timedOut']);
      } finally {
        await worker.stop();
      }
    }, 30_000);

    it('a delivery whose last attempt never ended (its worker died in it) runs alone; the others of its batch go uncounted', async () => {
      const hooks = new WebhookHandler({
        secret: 'hook-secret',
        dedupe: suite.opened.store.dedupe,
        dispatch: suite.opened.store.inbox,
      });
      const txOf = new Map<string, string>();
      hooks.on('message.add', async ({ data }, { tx }) => {
        const [row] = await sqlOn(tx, 'SELECT txid_current()::text AS txid');
        txOf.set(String(data[0]?.text), String(row?.txid));
      });
      for (const key of ['d1', 'd2', 'd3']) await hooks.handle(post(messageAdd(key, `chat-${key}`, key)));
      await sqlOn(
        suite.opened.db,
        `UPDATE "${suite.opened.schema}".inbox SET attempts = 1, last_error = $1 WHERE key = 'd2'`,
        [UNDER_WAY],
      );
      const worker = suite.opened.store.inbox.work(hooks, { pollIntervalMs: 10, batchSize: 10 });
      await until(() => txOf.size === 3);
      await worker.stop();
      expect(txOf.get('d1')).toBe(txOf.get('d3'));
      expect(txOf.get('d2')).not.toBe(txOf.get('d1'));
      expect(await row('d2')).toMatchObject({ state: 'done', attempts: 2 });
      expect(await row('d1')).toMatchObject({ state: 'done', attempts: 1, last_error: null });
      expect(await row('d3')).toMatchObject({ state: 'done', attempts: 1 });
    });

    it('refuses a timeoutMs that is not a positive whole number, naming it', () => {
      const { hooks } = handler({ on: false });
      expect(() => suite.opened.store.inbox.work(hooks, { timeoutMs: 0 })).toThrow(/timeoutMs/);
    });

    it('refuses a timeoutMs past the longest timer: it fired at once and cut every attempt', () => {
      const { hooks } = handler({ on: false });
      const month = 30 * 24 * 3_600_000;
      expect(() => suite.opened.store.inbox.work(hooks, { timeoutMs: month })).toThrow(
        /timeoutMs: must be a whole number >= 1 and <= 2147483647/,
      );
      expect(() => suite.opened.store.inbox.work(hooks, { pollIntervalMs: month })).toThrow(/pollIntervalMs/);
      // It is also the transaction's statement_timeout, which takes whole milliseconds.
      expect(() => suite.opened.store.inbox.work(hooks, { timeoutMs: 1500.5 })).toThrow(
        GatewayValidationError,
      );
    });
  });
}
