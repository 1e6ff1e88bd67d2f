// Drives the CRM process of processes/crm.ts as the service and an operator would: deliveries
// posted until answered 2xx (the service's retries), the process SIGKILLed at chosen points or at
// random moments and started again, then the database and the fake gateway counted.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import pg from 'pg';
import { postgresStore } from '../../src/postgres/store.js';
import { buildWebhook } from '../../src/testing/build-webhook.js';
import type { FakeGateway } from '../../src/testing/fake-gateway.js';
import { freePort } from '../support/servers.js';

const CRM = join(import.meta.dirname, 'processes', 'crm.ts');

/** The application_name of the CRM processes' connections. */
export const CRM_CONNECTIONS = 'mgsdk-crm';

/** What a run found: each figure should be 0 but `kills` and `unknownRows`, which are reported. */
export interface CrashFigures {
  kills: number;
  /** Exits nobody asked for (an unhandled 'error', an uncaught exception), and how they ended. */
  crashes: string[];
  duplicateContacts: number;
  missingContacts: number;
  lostDeliveries: number;
  duplicateMessages: number;
  duplicateOutboxRows: number;
  repeatedSends: number;
  unknownRows: number;
  /** Sends still pending or sending, and deliveries still pending, once settled. */
  unsettledRows: number;
}

/** One CRM backend on a database: its process, restarted after each kill. */
export class CrmUnderTest {
  #child: ChildProcess | undefined;
  #ready: Promise<void> | undefined;
  #stopping = false;
  kills = 0;
  /** Exits nobody asked for, as `code N` or the signal's name. */
  readonly crashes: string[] = [];

  private constructor(
    readonly env: Record<string, string>,
    readonly port: number,
  ) {}

  /** The database, for the harness's own connections (not named as the CRM's are). */
  get #adminUrl(): string {
    return (this.env.DATABASE_URL as string).split('?')[0] as string;
  }

  /** Another instance of the same CRM (same database and schema), on a port of its own. */
  async sibling(): Promise<CrmUnderTest> {
    return new CrmUnderTest(this.env, await freePort());
  }

  /** Creates the schema (the store's tables and the CRM's own) and picks a port. */
  static async create(
    url: string,
    driver: 'pg' | 'postgres.js',
    gateway: FakeGateway,
    stores: 'postgres' | 'memory' = 'postgres',
    more: Record<string, string> = {},
  ): Promise<CrmUnderTest> {
    const schema = `crash_${Math.random().toString(36).slice(2, 8)}`;
    // Its connections are named, so a run can end one of them at random as an operator would.
    const named = `${url}?application_name=${CRM_CONNECTIONS}`;
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    pool.on('error', () => {}); // a connection ended by the server's shutdown while the pool ends
    await postgresStore(pool, { schema }).migrate();
    await pool.query(`CREATE TABLE "${schema}".contacts (id serial PRIMARY KEY, key text)`);
    await pool.query(`CREATE TABLE "${schema}".messages (id serial PRIMARY KEY, key text)`);
    await pool.query(`CREATE TABLE "${schema}".misbehaved (key text PRIMARY KEY)`);
    await pool.end();
    const env = {
      DATABASE_URL: named,
      DRIVER: driver,
      SCHEMA: schema,
      GATEWAY_URL: gateway.url,
      GATEWAY_TOKEN: gateway.token,
      STORES: stores,
      ...more,
    };
    return new CrmUnderTest(env, await freePort());
  }

  /** Starts the process (dying at `crashAt` when given) unless it runs; resolves once it listens. */
  start(crashAt = ''): Promise<void> {
    if (this.#child && this.#child.exitCode === null && this.#child.signalCode === null)
      return this.#ready as Promise<void>;
    const child = spawn(process.execPath, ['--import', 'tsx', CRM], {
      env: { ...process.env, ...this.env, PORT: String(this.port), CRASH_AT: crashAt },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.#child = child;
    this.#stopping = false;
    child.once('exit', (code, signal) => {
      if (signal === 'SIGKILL') this.kills++;
      else if (!this.#stopping) this.crashes.push(signal ?? `code ${code}`);
    });
    this.#ready = new Promise((resolve) => {
      child.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      child.once('exit', () => resolve());
    });
    return this.#ready;
  }

  /** Whether the process is running. */
  get alive(): boolean {
    return this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** SIGKILLs the process by its PID and waits for its end. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (!child || !this.alive) return;
    const exited = once(child, 'exit');
    process.kill(child.pid as number, 'SIGKILL');
    await exited;
  }

  /** Sends `signal` to the process once it is ready (SIGUSR2: it holds its connections for 2 s). */
  async signal(signal: NodeJS.Signals): Promise<void> {
    await this.#ready;
    if (this.alive) process.kill(this.#child?.pid as number, signal);
  }

  /** Stops it gracefully (its worker and relay finish what they hold). */
  async stop(): Promise<void> {
    const child = this.#child;
    if (!child || !this.alive) return;
    this.#stopping = true;
    const exited = once(child, 'exit');
    process.kill(child.pid as number, 'SIGTERM');
    await exited;
  }

  /**
   * Posts `body` until it is answered 2xx, as the service retries (for hours; here for at most
   * 3 minutes, a safety net on a busy machine): starting the process again when it died.
   */
  async deliver(body: unknown): Promise<void> {
    const answers: number[] = [];
    for (const end = Date.now() + 180_000; Date.now() < end; ) {
      if (!this.alive) await this.start();
      const status = await fetch(`http://127.0.0.1:${this.port}/?secret=crash-secret`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(
        (r) => r.status,
        () => 0,
      );
      if (status >= 200 && status < 300) return;
      answers.push(status);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`a delivery was never answered 2xx: the last answers ${answers.slice(-10).join(', ')}`);
  }

  /** Waits (the process running) until no delivery and no send is left to do. */
  async settle(timeoutMs = 60_000): Promise<void> {
    const pool = new pg.Pool({ connectionString: this.#adminUrl, max: 1 });
    pool.on('error', () => {}); // a connection ended by the server's shutdown while the pool ends
    const s = `"${this.env.SCHEMA}"`;
    const end = Date.now() + timeoutMs;
    try {
      while (Date.now() < end) {
        if (!this.alive) await this.start();
        const { rows } = await pool.query(
          `SELECT (SELECT count(*) FROM ${s}.inbox WHERE state = 'pending')::int
                + (SELECT count(*) FROM ${s}.outbox WHERE status IN ('pending', 'sending'))::int AS open`,
        );
        if (rows[0]?.open === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await pool.end();
    }
  }

  /** The inbox row of the delivery whose idempotency key is `key`. */
  async inboxRow(key: string): Promise<{ state: string; attempts: number } | undefined> {
    const pool = new pg.Pool({ connectionString: this.#adminUrl, max: 1 });
    pool.on('error', () => {}); // a connection ended by the server's shutdown while the pool ends
    try {
      const { rows } = await pool.query(
        `SELECT state, attempts FROM "${this.env.SCHEMA}".inbox WHERE key = $1`,
        [key],
      );
      return rows[0];
    } finally {
      await pool.end();
    }
  }

  /** Counts what the database and the gateway hold against what was delivered. */
  async figures(gateway: FakeGateway, contactKeys: string[], messageKeys: string[]): Promise<CrashFigures> {
    const pool = new pg.Pool({ connectionString: this.#adminUrl, max: 1 });
    pool.on('error', () => {}); // a connection ended by the server's shutdown while the pool ends
    const s = `"${this.env.SCHEMA}"`;
    const counts = async (sql: string) =>
      new Map((await pool.query(sql)).rows.map((r: { key: string; n: number }) => [r.key, Number(r.n)]));
    const contacts = await counts(`SELECT key, count(*) AS n FROM ${s}.contacts GROUP BY key`);
    const messages = await counts(`SELECT key, count(*) AS n FROM ${s}.messages GROUP BY key`);
    const outbox = await counts(
      `SELECT split_part(params->>'text', ' ', 3) AS key, count(*) AS n FROM ${s}.outbox GROUP BY 1`,
    );
    const { rows } = await pool.query(
      `SELECT count(*) FILTER (WHERE status = 'unknown')::int AS unknown,
              count(*) FILTER (WHERE status IN ('pending', 'sending'))::int
                + (SELECT count(*) FROM ${s}.inbox WHERE state = 'pending')::int AS open FROM ${s}.outbox`,
    );
    await pool.end();
    const sent = new Map<string, number>();
    for (const r of gateway.requests) {
      const text = (r.body as { text?: string } | undefined)?.text;
      const mine = `order ${this.env.SCHEMA} `;
      if (r.method === 'POST' && r.path === '/v2/messages' && text?.startsWith(mine)) {
        const key = text.slice(mine.length);
        sent.set(key, (sent.get(key) ?? 0) + 1);
      }
    }
    const over = (map: Map<string, number>) =>
      [...map.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0);
    return {
      kills: this.kills,
      crashes: this.crashes,
      duplicateContacts: over(contacts),
      missingContacts: contactKeys.filter((k) => !contacts.has(k)).length,
      lostDeliveries: messageKeys.filter((k) => !messages.has(k)).length,
      duplicateMessages: over(messages),
      duplicateOutboxRows: over(outbox),
      repeatedSends: messageKeys.reduce((sum, k) => sum + Math.max(0, (sent.get(k) ?? 0) - 1), 0),
      unknownRows: Number(rows[0]?.unknown),
      unsettledRows: Number(rows[0]?.open),
    };
  }
}

/** A contact_add and a message.add with the idempotency key `key`. */
export const contactAdd = (key: string) =>
  buildWebhook('crm_entities.contact_add', { meta: { idempotency_key: key } } as never);
export const messageAdd = (key: string) =>
  buildWebhook('message.add', {
    meta: { idempotency_key: key },
    data: [{ chat_id: `chat-${key}`, text: 'hi' }],
  } as never);

/**
 * `deliveries` contact_add and message.add deliveries posted by four posters while the process is
 * SIGKILLed `kills` times at random moments (and started again); then settled and counted.
 */
export async function randomKills(
  crm: CrmUnderTest,
  gateway: FakeGateway,
  deliveries: number,
  kills: number,
) {
  const contactKeys = Array.from({ length: deliveries }, (_, i) => `c${i}`);
  const messageKeys = Array.from({ length: deliveries }, (_, i) => `m${i}`);
  const queue = contactKeys.flatMap((k, i) => [contactAdd(k), messageAdd(messageKeys[i] as string)]);
  await crm.start();
  const posters = [1, 2, 3, 4].map(async () => {
    for (let body = queue.shift(); body; body = queue.shift()) await crm.deliver(body);
  });
  for (let i = 0; i < kills; i++) {
    await new Promise((resolve) => setTimeout(resolve, 150 + Math.random() * 350));
    await crm.kill();
    await crm.start();
  }
  await Promise.all(posters);
  await crm.settle();
  await crm.stop();
  return crm.figures(gateway, contactKeys, messageKeys);
}
