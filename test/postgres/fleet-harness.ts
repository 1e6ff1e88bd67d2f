// A fleet's ordinary trouble, for the crash tests and the long run (crash-figures.ts): two
// instances of the CRM of processes/crm.ts on one schema take deliveries in turn while they are
// SIGKILLed and started again, PostgreSQL ends connections of theirs at random and restarts, one
// instance stalls (its connections held 2 s, past its claims' lease), and responders hang or fail
// on their first attempt. Then everything settles and the database and the gateway are counted.
import pg from 'pg';
import type { FakeGateway } from '../../src/testing/fake-gateway.js';
import {
  CRM_CONNECTIONS,
  type CrashFigures,
  type CrmUnderTest,
  contactAdd,
  messageAdd,
} from './crash-harness.js';

/** How much of each trouble a run has. */
export interface TroublePlan {
  /** contact_add and message.add deliveries each (every 10th contact hangs, every 10th + 5 fails, once). */
  deliveries: number;
  kills: number;
  terminations: number;
  restarts: number;
  stalls: number;
}

/** What a run found, and what it did. */
export interface FleetFigures extends CrashFigures {
  terminations: number;
  restarts: number;
  stalls: number;
  hung: number;
  failing: number;
}

/** The server the fleet runs on. */
export interface FleetServer {
  url: string;
  restart(downMs?: number): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The contact keys of a run: `h…` hangs on its first attempt, `f…` fails on it. */
function contactKeys(n: number): string[] {
  return Array.from({ length: n }, (_, i) => (i % 10 === 0 ? `h${i}` : i % 10 === 5 ? `f${i}` : `c${i}`));
}

/** Ends one connection of the CRM processes at random, as an operator or a pooler would. */
async function terminateOne(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  try {
    await client.connect();
    const { rows } = await client.query(
      `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
       WHERE application_name = $1 ORDER BY random() LIMIT 1`,
      [CRM_CONNECTIONS],
    );
    return rows[0]?.ended === true;
  } catch {
    return false; // the server is restarting
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The trouble of `plan`, in random order, 150-500 ms apart, while the deliveries are posted. */
async function makeTrouble(fleet: CrmUnderTest[], server: FleetServer, plan: TroublePlan) {
  const done = { terminations: 0, restarts: 0, stalls: 0 };
  const events = [
    ...Array.from({ length: plan.kills }, () => 'kill'),
    ...Array.from({ length: plan.terminations }, () => 'terminate'),
    ...Array.from({ length: plan.restarts }, () => 'restart'),
    ...Array.from({ length: plan.stalls }, () => 'stall'),
  ].sort(() => Math.random() - 0.5);
  for (const event of events) {
    await sleep(150 + Math.random() * 350);
    const crm = fleet[Math.floor(Math.random() * fleet.length)] as CrmUnderTest;
    if (event === 'kill') {
      await crm.kill();
      await crm.start();
    } else if (event === 'terminate') {
      if (await terminateOne(server.url)) done.terminations++;
    } else if (event === 'restart') {
      await server.restart(500);
      done.restarts++;
    } else {
      await fleet[0]?.signal('SIGUSR2');
      done.stalls++;
    }
  }
  return done;
}

/** Runs `plan` on `fleet` (instances of one CRM), settles, and counts. */
export async function fleetTrouble(
  fleet: CrmUnderTest[],
  gateway: FakeGateway,
  server: FleetServer,
  plan: TroublePlan,
): Promise<FleetFigures> {
  const contacts = contactKeys(plan.deliveries);
  const messages = Array.from({ length: plan.deliveries }, (_, i) => `m${i}`);
  const queue = contacts.flatMap((k, i) => [contactAdd(k), messageAdd(messages[i] as string)]);
  await Promise.all(fleet.map((crm) => crm.start()));
  let turn = 0;
  const posters = [1, 2, 3, 4].map(async () => {
    for (let body = queue.shift(); body; body = queue.shift()) {
      await (fleet[turn++ % fleet.length] as CrmUnderTest).deliver(body);
    }
  });
  const done = await makeTrouble(fleet, server, plan);
  await Promise.all(posters);
  for (const crm of fleet) await crm.settle();
  await Promise.all(fleet.map((crm) => crm.stop()));
  const figures = await (fleet[0] as CrmUnderTest).figures(gateway, contacts, messages);
  return {
    ...figures,
    kills: fleet.reduce((sum, crm) => sum + crm.kills, 0),
    crashes: fleet.flatMap((crm) => crm.crashes),
    ...done,
    hung: contacts.filter((k) => k.startsWith('h')).length,
    failing: contacts.filter((k) => k.startsWith('f')).length,
  };
}
