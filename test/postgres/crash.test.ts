// Exactly once across crashes (DESIGN: The CRM's own database): a CRM process SIGKILLed at each
// point — inside the responder's transaction, after its commit before the answer, inside a
// listener's transaction, after the done-commit, the relay before and after the send — and at
// random moments; started again; the service retries. And a fleet of two under ordinary trouble
// (fleet-harness.ts). No unplanned crash, no duplicate CRM row, no lost delivery, no repeated send,
// nothing left stuck (rows left unknown are counted). A real PostgreSQL, through pg and postgres.js.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeGateway, type FakeGateway } from '../../src/testing/fake-gateway.js';
import { postgresTargets } from '../support/postgres-targets.js';
import { CrmUnderTest, contactAdd, messageAdd, randomKills } from './crash-harness.js';
import { fleetTrouble } from './fleet-harness.js';

const targets = postgresTargets({ pglite: false });
const POINTS = [
  'responder-inside',
  'responder-after-commit',
  'listener-inside',
  'after-done-commit',
  'relay-before-send',
  'relay-after-send',
] as const;

/** The figures that must be 0 after any crash (rows left `unknown` are counted, not 0). */
const NOTHING_LOST_OR_REPEATED = {
  duplicateContacts: 0,
  missingContacts: 0,
  lostDeliveries: 0,
  duplicateMessages: 0,
  duplicateOutboxRows: 0,
  repeatedSends: 0,
  unsettledRows: 0,
};

let gateway: FakeGateway;
beforeAll(async () => {
  gateway = await createFakeGateway({
    rateLimit: false,
    autoStatuses: false,
    channels: [{ channel_id: 'ch-1', transport: 'whatsapp' }],
  });
});
afterAll(async () => gateway?.close());

for (const target of targets) {
  const driver = target.name as 'pg' | 'postgres.js';
  describe(`SIGKILL at each point, ${driver}`, () => {
    for (const point of POINTS) {
      it(`${point}: no duplicate, nothing lost, no send repeated`, async () => {
        const crm = await CrmUnderTest.create(target.url() as string, driver, gateway);
        await crm.start(point);
        for (const [i, body] of [
          contactAdd('c0'),
          messageAdd('m0'),
          contactAdd('c1'),
          messageAdd('m1'),
        ].entries()) {
          await crm.deliver(body);
          if (i === 1 && point.startsWith('relay')) await crm.start(point); // a crash of its own per send
        }
        await crm.settle();
        await crm.stop();
        const figures = await crm.figures(gateway, ['c0', 'c1'], ['m0', 'm1']);
        expect(figures.kills).toBeGreaterThan(0);
        expect(figures).toMatchObject(NOTHING_LOST_OR_REPEATED);
        if (point.startsWith('relay')) expect(figures.unknownRows).toBeGreaterThan(0);
      }, 120_000);
    }

    it('without the PostgreSQL store, the same crash inside the responder makes a second contact', async () => {
      const crm = await CrmUnderTest.create(target.url() as string, driver, gateway, 'memory');
      await crm.start('responder-inside');
      await crm.deliver(contactAdd('c0'));
      await crm.stop();
      expect((await crm.figures(gateway, ['c0'], [])).duplicateContacts).toBe(1);
    }, 120_000);

    it('a delivery whose listener kills the process every time is dead after maxAttempts, never run again', async () => {
      const more = { POISON_KEY: 'poison', MAX_ATTEMPTS: '2' };
      const crm = await CrmUnderTest.create(target.url() as string, driver, gateway, 'postgres', more);
      await crm.start();
      await crm.deliver(messageAdd('poison'));
      await crm.settle(); // restarts the process after each kill, until nothing is pending
      await new Promise((resolve) => setTimeout(resolve, 300)); // a worker that would run it again
      expect(await crm.inboxRow('poison')).toEqual({ state: 'dead', attempts: 2 });
      expect(crm.kills).toBe(2);
      await crm.deliver(messageAdd('m0')); // the worker goes on
      await crm.settle();
      await crm.stop();
      expect(crm.kills).toBe(2);
      expect((await crm.figures(gateway, [], ['m0'])).lostDeliveries).toBe(0);
    }, 120_000);

    it('a fleet of two under ordinary trouble: kills, ended connections, a restart, a stall, hung and failing responders', async () => {
      const more = { LEASE_MS: '3000', TIMEOUT_MS: '1000' };
      const a = await CrmUnderTest.create(target.url() as string, driver, gateway, 'postgres', more);
      const server = {
        url: target.url() as string,
        restart: (ms?: number) => target.restart?.(ms) as Promise<void>,
      };
      const plan = { deliveries: 10, kills: 2, terminations: 3, restarts: 1, stalls: 1 };
      const figures = await fleetTrouble([a, await a.sibling()], gateway, server, plan);
      console.log(`fleet figures (${driver}): ${JSON.stringify(figures)}`);
      expect(figures).toMatchObject({ crashes: [], ...NOTHING_LOST_OR_REPEATED });
    }, 300_000);

    it('random SIGKILLs under a stream of deliveries and sends', async () => {
      const crm = await CrmUnderTest.create(target.url() as string, driver, gateway);
      const figures = await randomKills(crm, gateway, 20, 6);
      console.log(`crash figures (${driver}): ${JSON.stringify(figures)}`);
      expect(figures).toMatchObject(NOTHING_LOST_OR_REPEATED);
    }, 300_000);
  });
}
