// DESIGN "The CRM's own database": the outbox repeats only what never left. A send whose error
// says `requestSent: false` (a throwing token function, no token, the relay's own time-out while
// the row waits in the rate limiter) goes back to `pending` and is sent later, after a pause; the
// `request_id` of an accepted send survives a failed record (a dropped connection, a failing
// statement). On PGlite and a real PostgreSQL through pg and postgres.js, against the fake gateway.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import type { GatewayError } from '../../src/core/errors.js';
import { openStore, postgresTargets, sqlOn, until } from '../support/postgres-targets.js';
import { answeringOnce } from '../support/servers.js';
import { fakeGatewayForFile, params } from './outbox-fixtures.js';

const { gateway: fake, sends } = fakeGatewayForFile();
const STOPPED = 'the relay stopped while sending it: it may or may not have been sent, and is not sent again';

for (const target of postgresTargets()) {
  describe(`store.outbox repeats only what never left, on ${target.name}`, () => {
    let opened: Awaited<ReturnType<typeof openStore>>;
    beforeEach(async () => {
      opened = await openStore(target);
    }, 60_000); // the first opens the file's PGlite, slow on a busy machine
    afterEach(async () => opened.close());
    const outbox = () => opened.store.outbox;
    const write = (chatId: string) =>
      import('../../src/postgres/driver.js').then(({ driverOf }) =>
        driverOf(opened.db).transaction((_s, tx) => outbox().send(tx, params(chatId))),
      );
    const status = async (id: string) => (await outbox().get(id))?.status;
    /** A relay whose reports are kept. */
    const relayOf = (client: GatewayClient, options: { leaseMs?: number; concurrency?: number } = {}) => {
      const reports: GatewayError[] = [];
      const relay = outbox().relay(client, {
        pollIntervalMs: 10,
        ...options,
        onError: (e) => void reports.push(e),
      });
      return { relay, reports, notSent: () => reports.filter((e) => /was not sent/.test(e.message)) };
    };
    const withToken = () => new GatewayClient({ baseUrl: fake().url, token: fake().token, logLevel: 'off' });
    /** A client whose rate limiter's only start of the minute is taken: a relay's send waits in it. */
    const heldClient = async () => {
      const client = new GatewayClient({
        baseUrl: fake().url,
        token: fake().token,
        rateLimit: { requests: 1, intervalMs: 60_000 },
        logLevel: 'off',
      });
      await client.channels.list();
      return client;
    };

    it('a token function that throws once: the row goes back to pending, then is sent once', async () => {
      const before = sends();
      const id = await write('79001110001');
      let asked = 0;
      const client = new GatewayClient({
        baseUrl: fake().url,
        token: () => {
          if (++asked === 1) throw new Error('vault unreachable');
          return fake().token;
        },
        logLevel: 'off',
      });
      const { relay, reports, notSent } = relayOf(client);
      await until(() => notSent().length === 1);
      expect(await status(id)).toBe('pending');
      expect(notSent()[0]?.cause).toMatchObject({ requestSent: false });
      await until(async () => (await status(id)) === 'accepted');
      await relay.stop();
      expect(sends() - before).toBe(1);
      expect(reports.some((e) => /unknown/.test(e.message))).toBe(false);
    });

    it('no token at all: every row stays pending, the relay holds longer each time, and a relay with a token sends them all', async () => {
      const saved = process.env.GATEWAY_TOKEN;
      delete process.env.GATEWAY_TOKEN;
      try {
        const before = sends();
        const ids = [await write('79001110002'), await write('79001110003'), await write('79001110004')];
        const { relay, reports, notSent } = relayOf(
          new GatewayClient({ baseUrl: fake().url, logLevel: 'off' }),
        );
        await until(() => notSent().length === 1);
        const first = performance.now();
        await until(() => notSent().length === 2);
        const held = performance.now() - first;
        await relay.stop();
        // one row tried, then held: the next try came after the first pause, the pause doubled
        expect(held).toBeGreaterThanOrEqual(900);
        expect(notSent().map((e) => e.message)).toEqual([
          expect.stringMatching(/holds for 1000 ms$/),
          expect.stringMatching(/holds for 2000 ms$/),
        ]);
        expect(reports).toHaveLength(2);
        for (const id of ids) expect(await status(id)).toBe('pending');
        expect(sends()).toBe(before);

        const up = relayOf(withToken());
        await until(async () => (await Promise.all(ids.map(status))).every((s) => s === 'accepted'));
        await up.relay.stop();
        expect(sends() - before).toBe(3);
      } finally {
        if (saved !== undefined) process.env.GATEWAY_TOKEN = saved;
      }
    });

    it('the relay’s own time-out while the row waits in the rate limiter: pending, not unknown', async () => {
      const before = sends();
      const client = await heldClient();
      const id = await write('79001110005');
      const { relay, reports, notSent } = relayOf(client, { leaseMs: 1_000 });
      await until(() => notSent().length === 1);
      await relay.stop();
      expect(notSent()[0]?.cause).toMatchObject({ name: 'GatewayAbortError', requestSent: false });
      expect(await status(id)).toBe('pending');
      expect(reports.some((e) => /unknown/.test(e.message))).toBe(false);
      expect(sends()).toBe(before);
    });

    it('sends that fail together never left: one pause of 1 s, not one doubling per send under way', async () => {
      const client = await heldClient();
      for (const chat of ['79001110011', '79001110012', '79001110013', '79001110014']) await write(chat);
      const { relay, notSent } = relayOf(client, { leaseMs: 1_000, concurrency: 4 });
      await until(() => notSent().length >= 4);
      await relay.stop();
      // 4 sends taken at once and refused at once: before, the relay then held for 8 s (at
      // concurrency 8, the full minute) after one moment of trouble
      expect(
        notSent()
          .slice(0, 4)
          .map((e) => e.message.replace(/^Outbox row \d+ /, '')),
      ).toEqual(Array(4).fill('was not sent; it stays pending, and the relay holds for 1000 ms'));
    });

    it('a token the service refuses (401, rotated on one side): the rows stay pending, then go out once with the new one', async () => {
      const before = fake().requests.length;
      const ids = [await write('79001110021'), await write('79001110022')];
      const stale = new GatewayClient({
        baseUrl: fake().url,
        token: 'a-token-rotated-away',
        logLevel: 'off',
      });
      const { relay, reports, notSent } = relayOf(stale);
      const settled = async () => (await Promise.all(ids.map(status))).every((s) => s === 'failed');
      await until(async () => reports.length > 0 || (await settled()));
      await relay.stop();
      // refused for the account, not for the message: before, every row of the outbox ended
      // `failed` within moments, never to be sent
      expect(notSent()).toHaveLength(reports.length);
      expect(notSent()[0]?.cause).toMatchObject({ name: 'AuthenticationError', status: 401 });
      for (const id of ids) expect(await status(id)).toBe('pending');
      const up = relayOf(withToken());
      await until(async () => (await Promise.all(ids.map(status))).every((s) => s === 'accepted'));
      await up.relay.stop();
      const sent = fake()
        .requests.slice(before)
        .filter((r) => r.path === '/v2/messages' && r.status === 200);
      expect(
        sent.map((r) => (r.body as { recipient: { chat_id: string } }).recipient.chat_id).sort(),
      ).toEqual(['79001110021', '79001110022']);
    });

    it('a 429, then the service out of reach: pending, not unknown (nothing was ever accepted)', async () => {
      // answered 429 once, then every later attempt is refused
      const server = await answeringOnce(429, { error: 'to_many_requests' }, { 'retry-after': '1' });
      const id = await write('79001110007');
      const client = new GatewayClient({ baseUrl: server.url, token: fake().token, logLevel: 'off' });
      const { relay, reports } = relayOf(client);
      await until(() => reports.length > 0);
      await relay.stop();
      expect(reports[0]?.message).toMatch(/was not sent; it stays pending/);
      expect(server.reached()).toBe(1);
      expect(await status(id)).toBe('pending');
      expect(reports.filter((e) => /unknown/.test(e.message))).toEqual([]);
    });

    it('a row reported unknown meanwhile is never put back to pending, though its send never left', async () => {
      // Its relay waits in the rate limiter past the lease, and the database refuses the record
      // until another loop has found the row past its lease and reported it unknown ("not sent
      // again": the user may send it anew).
      const s = `"${opened.schema}"`;
      await sqlOn(opened.db, `CREATE TABLE ${s}.refusing (on_ boolean NOT NULL)`);
      await sqlOn(opened.db, `INSERT INTO ${s}.refusing VALUES (true)`);
      await sqlOn(
        opened.db,
        `CREATE FUNCTION ${s}.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF (SELECT on_ FROM ${s}.refusing) THEN RAISE EXCEPTION 'the disk is full'; END IF;
           RETURN NEW;
         END $$`,
      );
      await sqlOn(
        opened.db,
        `CREATE TRIGGER refuse BEFORE UPDATE ON ${s}.outbox FOR EACH ROW
         WHEN (NEW.status = 'pending') EXECUTE FUNCTION ${s}.refuse()`,
      );
      const client = await heldClient();
      const before = sends();
      const id = await write('79001110031');
      const { relay, reports, notSent } = relayOf(client, { leaseMs: 1_000, concurrency: 2 });
      await until(() => reports.some((e) => e.message === `Outbox row ${id} is unknown: ${STOPPED}`));
      await sqlOn(opened.db, `UPDATE ${s}.refusing SET on_ = false`);
      await until(() => notSent().length === 1);
      await relay.stop();
      expect(await status(id)).toBe('unknown');
      expect(notSent()[0]?.message).not.toMatch(/stays pending/);
      expect(sends()).toBe(before);
    });

    /** Makes the statement that records a request id fail once, with `failure` (PL/pgSQL). */
    const failRecordOnce = async (failure: string) => {
      const s = `"${opened.schema}"`;
      await sqlOn(opened.db, `CREATE SEQUENCE ${s}.record_attempts`);
      await sqlOn(
        opened.db,
        `CREATE FUNCTION ${s}.fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF nextval('${s}.record_attempts') = 1 THEN ${failure}; END IF;
           RETURN NEW;
         END $$`,
      );
      await sqlOn(
        opened.db,
        `CREATE TRIGGER fail_once BEFORE UPDATE ON ${s}.outbox FOR EACH ROW
         WHEN (NEW.request_id IS NOT NULL AND OLD.request_id IS NULL) EXECUTE FUNCTION ${s}.fail_once()`,
      );
    };

    const recordsTheRequestId = async () => {
      const before = sends();
      const id = await write('79001110006');
      const { relay, reports } = relayOf(withToken());
      await until(async () => (await outbox().get(id))?.request_id != null);
      await relay.stop();
      const row = await outbox().get(id);
      expect(row).toMatchObject({ status: 'accepted', request_id: expect.stringMatching(/./) });
      expect(row?.sent_at).toBeInstanceOf(Date);
      expect(sends() - before).toBe(1);
      expect(reports.map((e) => e.message)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^Outbox row ${id}: recording that the service accepted it as request_id ${row?.request_id} failed; trying again$`,
          ),
        ),
      ]);
    };

    it('recording the request id fails once right after the send: it is recorded, never taken for a failed send', async () => {
      await failRecordOnce(`RAISE EXCEPTION 'the disk is full'`);
      await recordsTheRequestId();
    });

    it.skipIf(target.name === 'pglite')(
      'the connection drops while the request id is recorded (pg_terminate_backend): recorded on the next one',
      async () => {
        await failRecordOnce('PERFORM pg_terminate_backend(pg_backend_pid())');
        await recordsTheRequestId();
      },
    );
  });
}
