// The long crash run, for the figures in bench/README.md (the suite runs a CI-sized one):
// `npx tsx test/postgres/crash-figures.ts [kills] [deliveries] [terminations]` on a private
// PostgreSQL, through pg and postgres.js: a fleet of two CRM instances (fleet-harness.ts) under
// `kills` SIGKILLs, `terminations` connections ended at random, two server restarts and one
// stalled instance, while `deliveries` contact_add and as many message.add are posted (every
// tenth contact's responder hangs once, another tenth fails once). Prints the figures as JSON;
// exits 1 when an unplanned crash happened or any should-be-0 figure is not.
import { createFakeGateway } from '../../src/testing/fake-gateway.js';
import { postgresBinDir, startPostgresServer } from '../support/postgres-server.js';
import { CrmUnderTest } from './crash-harness.js';
import { fleetTrouble } from './fleet-harness.js';

const kills = Number(process.argv[2] ?? 40);
const deliveries = Number(process.argv[3] ?? kills * 5);
const terminations = Number(process.argv[4] ?? kills);
const bin = postgresBinDir();
if (!bin) throw new Error('postgres not found: apt-get install postgresql');
const server = await startPostgresServer(bin);
const gateway = await createFakeGateway({
  rateLimit: false,
  autoStatuses: false,
  maxRecords: 100_000,
  channels: [{ channel_id: 'ch-1', transport: 'whatsapp' }],
});
let failed = false;
try {
  for (const driver of ['pg', 'postgres.js'] as const) {
    const started = Date.now();
    const more = { LEASE_MS: '3000', TIMEOUT_MS: '1000' };
    const a = await CrmUnderTest.create(server.url, driver, gateway, 'postgres', more);
    const plan = { deliveries, kills, terminations, restarts: 2, stalls: 1 };
    const figures = await fleetTrouble([a, await a.sibling()], gateway, server, plan);
    const seconds = Math.round((Date.now() - started) / 1000);
    console.log(JSON.stringify({ driver, deliveries: deliveries * 2, seconds, ...figures }));
    const {
      kills: _k,
      unknownRows: _u,
      crashes,
      terminations: _t,
      restarts: _r,
      stalls: _s,
      hung: _h,
      failing: _f,
      ...zeros
    } = figures;
    failed ||= crashes.length > 0 || Object.values(zeros).some((n) => n !== 0);
  }
} finally {
  await gateway.close();
  await server.stop();
}
process.exit(failed ? 1 : 0);
