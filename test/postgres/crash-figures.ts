// The large crash run, for the figures in bench/README.md (the suite runs a CI-sized one):
// `npx tsx test/postgres/crash-figures.ts [kills per driver] [deliveries]` on a private PostgreSQL,
// through pg and postgres.js. Prints the figures as JSON; exits 1 when any should-be-0 figure is not.
import { createFakeGateway } from '../../src/testing/fake-gateway.js';
import { postgresBinDir, startPostgresServer } from '../support/postgres-server.js';
import { CrmUnderTest, randomKills } from './crash-harness.js';

const kills = Number(process.argv[2] ?? 100);
const deliveries = Number(process.argv[3] ?? kills * 2);
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
    const crm = await CrmUnderTest.create(server.url, driver, gateway);
    const figures = await randomKills(crm, gateway, deliveries, kills);
    console.log(JSON.stringify({ driver, deliveries: deliveries * 2, ...figures }));
    const { kills: _k, unknownRows: _u, ...zeros } = figures;
    failed ||= Object.values(zeros).some((n) => n !== 0);
  }
} finally {
  await gateway.close();
  await server.stop();
}
process.exit(failed ? 1 : 0);
