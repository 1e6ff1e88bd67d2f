// Every transaction is bounded (DESIGN: What holds under a fleet's ordinary trouble): a responder
// that never settles under store.dedupe is cut when the handler's lease ends (its transaction
// rolled back, its connection returned, its key free for the service's next attempt), and the
// server would end the transaction if its process froze. A responder that fails costs no
// connection. On PGlite and a real PostgreSQL through pg and postgres.js.
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PostgresDedupeStore } from '../../src/postgres/dedupe-store.js';
import { postgresStore } from '../../src/postgres/store.js';
import type { DedupeStore } from '../../src/webhooks/receive/dedupe-store.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { fixture } from '../support/fixtures.js';
import { HOOK_URL } from '../support/handler.js';
import {
  openStore,
  PGLITE_START_MS,
  postgresTargets,
  serverLimitsOf,
  sqlOn,
  until,
} from '../support/postgres-targets.js';

/** A contact_add of `name` with the idempotency key `key`. */
const contactAdd = (key: string, name = 'Alice') => {
  const body = fixture('v2', 'crm_entities.contact_add') as {
    data: { name: string }[];
    meta: { idempotency_key: string };
  };
  const data = body.data.map((contact) => ({ ...contact, name }));
  return JSON.stringify({ ...body, data, meta: { ...body.meta, idempotency_key: key } });
};
const post = (body: string) => ({
  method: 'POST',
  url: HOOK_URL,
  headers: { 'content-type': 'application/json' },
  body,
});

/**
 * `store` as the handler sees it, with the lease the handler passes (at least a minute) cut to
 * `leaseMs`, so no test waits a minute.
 */
const withLease = (store: PostgresDedupeStore, leaseMs: number): DedupeStore => ({
  claim: (key, lease) => store.claim(key, lease),
  keepReply: (key, reply, ttlMs) => store.keepReply(key, reply, ttlMs),
  complete: (key, ttlMs, reply, token) => store.complete(key, ttlMs, reply, token),
  release: (key, token) => store.release(key, token),
  processInTransaction: (key, process, ttlMs) => store.processInTransaction(key, process, ttlMs, leaseMs),
});

const LEASE_MS = 400;

for (const target of postgresTargets()) {
  describe(`the dedupe transaction's bounds on ${target.name}`, () => {
    let opened: Awaited<ReturnType<typeof openStore>>;
    let contacts: string;
    beforeEach(async () => {
      opened = await openStore(target);
      contacts = `"${opened.schema}".contacts`;
      await sqlOn(opened.db, `CREATE TABLE ${contacts} (id serial PRIMARY KEY, name text)`);
    }, PGLITE_START_MS); // a safety net: PGlite starts slowly on a busy machine
    afterEach(async () => opened.close());

    /** A handler on `store` whose responder inserts a contact through tx, and then hangs while `hang` says so. */
    const handler = (store: PostgresDedupeStore, hang: (name: string) => boolean) => {
      const hooks = new WebhookHandler({
        secret: 'hook-secret',
        dedupe: withLease(store, LEASE_MS),
        dispatch: 'await',
        replyTimeoutMs: 150,
      });
      hooks.on('error', () => {});
      hooks.respond('crm_entities.contact_add', async ({ data }, { tx }) => {
        const name = String(data[0]?.name);
        await sqlOn(tx, `INSERT INTO ${contacts} (name) VALUES ($1)`, [name]);
        if (hang(name)) await new Promise(() => {});
        return { id: 'c', name };
      });
      return hooks;
    };
    /** Posts `body` until it is answered 200, as the service retries; the answers. */
    const untilProcessed = async (hooks: WebhookHandler, body: string) => {
      const answers: number[] = [];
      await until(async () => {
        answers.push((await hooks.handle(post(body))).status);
        return answers.at(-1) === 200;
      }, 15_000);
      return answers;
    };
    const idleInTransaction = async () =>
      Number(
        (
          await sqlOn(
            opened.db,
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'idle in transaction'`,
          )
        )[0]?.n,
      );

    it('a responder that never settles is cut at the lease: rolled back, its key free, the retry processed', async () => {
      let calls = 0;
      const hooks = handler(opened.store.dedupe, () => ++calls === 1);
      expect((await hooks.handle(post(contactAdd('k-hung')))).status).toBe(500); // past replyTimeoutMs
      const answers = await untilProcessed(hooks, contactAdd('k-hung'));
      expect(new Set(answers.slice(0, -1))).not.toContain(200);
      expect(calls).toBe(2);
      // The hung attempt's insert rolled back with its transaction: the retry's alone is left.
      expect((await sqlOn(opened.db, `SELECT count(*)::int AS n FROM ${contacts}`))[0]?.n).toBe(1);
      if (target.name !== 'pglite') await until(async () => (await idleInTransaction()) === 0, 5_000);
    }, 30_000);

    it.skipIf(target.name === 'pglite')(
      'four hung responders on a pool of four: later deliveries are processed once their leases end',
      async () => {
        const url = target.url() as string;
        const small = target.name === 'pg' ? new pg.Pool({ connectionString: url, max: 4 }) : undefined;
        const { default: postgres } = await import('postgres');
        const db = small ?? postgres(url, { max: 4, onnotice: () => {} });
        try {
          const store = postgresStore(db, { schema: opened.schema });
          const hooks = handler(store.dedupe, (name) => name.startsWith('hung'));
          const hung = [0, 1, 2, 3].map((i) => contactAdd(`k-hung-${i}`, `hung ${i}`));
          const answers = await Promise.all(hung.map((body) => hooks.handle(post(body))));
          expect(answers.map((a) => a.status)).toEqual([500, 500, 500, 500]);
          for (const key of ['k-after-1', 'k-after-2']) await untilProcessed(hooks, contactAdd(key));
          // None left open for good (a retry's short transaction may be under way a moment).
          await until(async () => (await idleInTransaction()) === 0, 5_000);
        } finally {
          await (small ? small.end() : (db as { end(o: object): Promise<void> }).end({ timeout: 1 }));
        }
      },
      30_000,
    );

    it('bounds the transaction on the server too: each statement by the lease, and it ends when idle past the lease plus 10 s', async () => {
      const hooks = new WebhookHandler({
        secret: 'hook-secret',
        dedupe: withLease(opened.store.dedupe, LEASE_MS),
        dispatch: 'await',
      });
      let settings: unknown;
      hooks.respond('crm_entities.contact_add', async (_event, { tx }) => {
        settings = await serverLimitsOf(tx);
        return { id: 'c', name: 'Ann' };
      });
      expect((await hooks.handle(post(contactAdd('k-settings')))).status).toBe(200);
      expect(settings).toEqual({ statement: '400ms', idle: '10400ms' });
    });

    it.runIf(target.name === 'pg')(
      'a responder that throws costs no connection: only a broken one is dropped',
      async () => {
        const pool = opened.db as pg.Pool;
        let connects = 0;
        pool.on('connect', () => void connects++);
        const hooks = new WebhookHandler({
          secret: 'hook-secret',
          dedupe: opened.store.dedupe,
          dispatch: 'await',
        });
        hooks.on('error', () => {});
        hooks.respond('crm_entities.contact_add', async () => {
          throw new Error('CRM refused it');
        });
        for (let i = 0; i < 20; i++)
          expect((await hooks.handle(post(contactAdd(`k-fail-${i}`)))).status).toBe(500);
        expect(connects).toBeLessThanOrEqual(1);
      },
    );
  });
}
