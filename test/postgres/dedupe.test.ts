// store.dedupe: a CRM responder runs inside a transaction that also keeps its reply with the key
// (DESIGN: The CRM's own database), on PGlite and on a real PostgreSQL through pg and postgres.js,
// and through each ORM (Prisma, Drizzle, Kysely, Knex).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { fixture } from '../support/fixtures.js';
import { HOOK_URL } from '../support/handler.js';
import { onPGlite, openStore, PGLITE_START_MS, postgresTargets, sqlOn } from '../support/postgres-targets.js';

const contactAdd = (key: string) => {
  const body = fixture('v2', 'crm_entities.contact_add') as { meta: { idempotency_key: string } };
  return JSON.stringify({ ...body, meta: { ...body.meta, idempotency_key: key } });
};
const post = (body: string) => ({
  method: 'POST',
  url: HOOK_URL,
  headers: { 'content-type': 'application/json' },
  body,
});

for (const target of postgresTargets({ orms: true })) {
  describe(`store.dedupe on ${target.name}`, () => {
    let opened: Awaited<ReturnType<typeof openStore>>;
    let contacts: string;
    beforeEach(async () => {
      opened = await openStore(target);
      contacts = `"${opened.schema}".contacts`;
      await sqlOn(opened.db, `CREATE TABLE IF NOT EXISTS ${contacts} (id serial PRIMARY KEY, name text)`);
      await sqlOn(opened.db, `DELETE FROM ${contacts}`);
    }, PGLITE_START_MS);
    afterEach(async () => opened.close());

    const handler = () => {
      const hooks = new WebhookHandler({
        secret: 'hook-secret',
        dedupe: opened.store.dedupe,
        dispatch: 'await',
      });
      const errors: string[] = [];
      hooks.on('error', (error) => void errors.push(error.message));
      return { hooks, errors };
    };
    const countContacts = async () =>
      Number((await sqlOn(opened.db, `SELECT count(*)::int AS n FROM ${contacts}`))[0]?.n);

    it('migrate() is idempotent: the second run applies nothing', async () => {
      expect(await opened.store.migrate()).toEqual([]);
    });

    it("runs the responder in a transaction: the CRM's row and the reply commit together; a repeat gets the same reply", async () => {
      const { hooks } = handler();
      hooks.respond('crm_entities.contact_add', async (_event, { tx }) => {
        const [row] = await sqlOn(
          tx,
          `INSERT INTO ${contacts} (name) VALUES ('Ann') RETURNING id::text AS id`,
        );
        return { id: String(row?.id), name: 'Ann' };
      });
      const first = await hooks.handle(post(contactAdd('k-1')));
      const again = await hooks.handle(post(contactAdd('k-1')));
      expect(first.status).toBe(200);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(await countContacts()).toBe(1);
    });

    it('a responder that fails after its insert leaves no row and no key: the retry runs it on a clean slate', async () => {
      const { hooks, errors } = handler();
      let calls = 0;
      hooks.respond('crm_entities.contact_add', async (_event, { tx }) => {
        await sqlOn(tx, `INSERT INTO ${contacts} (name) VALUES ('Bob')`);
        if (++calls === 1) throw new Error('CRM down');
        return { id: 'c-2', name: 'Bob' };
      });
      expect((await hooks.handle(post(contactAdd('k-2')))).status).toBe(500);
      expect(await countContacts()).toBe(0);
      expect(errors.join()).toMatch(/CRM down/);
      const retry = await hooks.handle(post(contactAdd('k-2')));
      expect(retry.status).toBe(200);
      expect(await countContacts()).toBe(1);
    });

    it("a failing queue rolls back the responder's rows with it: the retry runs on a clean slate, one row in the end", async () => {
      let queueUp = false;
      const hooks = new WebhookHandler({
        secret: 'hook-secret',
        dedupe: opened.store.dedupe,
        dispatch: async () => {
          if (!queueUp) throw new Error('queue down');
        },
      });
      hooks.on('error', () => {});
      hooks.respond('crm_entities.contact_add', async (_event, { tx }) => {
        await sqlOn(tx, `INSERT INTO ${contacts} (name) VALUES ('Cy')`);
        return { id: 'c-3', name: 'Cy' };
      });
      expect((await hooks.handle(post(contactAdd('k-3')))).status).toBe(503);
      expect(await countContacts()).toBe(0);
      queueUp = true;
      const retry = await hooks.handle(post(contactAdd('k-3')));
      expect(retry.status).toBe(200);
      expect(await countContacts()).toBe(1);
      expect((await hooks.handle(post(contactAdd('k-3')))).body).toEqual(retry.body);
      expect(await countContacts()).toBe(1);
    });

    it("under dispatch: 'await' the listeners run in the delivery's transaction and get it as tx: their writes commit with the reply, and nothing waits on itself", async () => {
      const { hooks, errors } = handler();
      const { store } = opened;
      hooks.respond('crm_entities.contact_add', async (_event, context) => {
        await sqlOn(store.tx(context), `INSERT INTO ${contacts} (name) VALUES ('responder')`);
        return { id: 'c-7', name: 'Gil' };
      });
      hooks.on('crm_entities.contact_add', async (_event, context) => {
        await sqlOn(store.tx(context), `INSERT INTO ${contacts} (name) VALUES ('listener')`);
      });
      const first = await hooks.handle(post(contactAdd('k-7')));
      expect(errors).toEqual([]);
      expect(first.status).toBe(200);
      const again = await hooks.handle(post(contactAdd('k-7')));
      expect([again.status, again.body]).toEqual([200, first.body]);
      const second = await hooks.handle(post(contactAdd('k-8')));
      expect(second.status).toBe(200);
      const names = await sqlOn(opened.db, `SELECT name FROM ${contacts} ORDER BY id`);
      expect(names.map((row) => row.name)).toEqual(['responder', 'listener', 'responder', 'listener']);
    });

    it("a listener that fails after its write rolls back its row and the responder's: the retry runs both on a clean slate", async () => {
      const { hooks, errors } = handler();
      const { store } = opened;
      let listenerUp = false;
      hooks.respond('crm_entities.contact_add', async (_event, context) => {
        await sqlOn(store.tx(context), `INSERT INTO ${contacts} (name) VALUES ('responder')`);
        return { id: 'c-9', name: 'Hal' };
      });
      hooks.on('crm_entities.contact_add', async (_event, context) => {
        await sqlOn(store.tx(context), `INSERT INTO ${contacts} (name) VALUES ('listener')`);
        if (!listenerUp) throw new Error('CRM queue down');
      });
      expect((await hooks.handle(post(contactAdd('k-9')))).status).toBe(500);
      expect(errors.join()).toMatch(/CRM queue down/);
      expect(await countContacts()).toBe(0);
      listenerUp = true;
      expect((await hooks.handle(post(contactAdd('k-9')))).status).toBe(200);
      expect(await countContacts()).toBe(2);
    });

    it.skipIf(onPGlite(target))(
      'a second attempt while the first transaction is alive is answered 409',
      async () => {
        const { hooks } = handler();
        let release: () => void = () => {};
        const holding = new Promise<void>((resolve) => {
          release = resolve;
        });
        let started: () => void = () => {};
        const inside = new Promise<void>((resolve) => {
          started = resolve;
        });
        hooks.respond('crm_entities.contact_add', async () => {
          started();
          await holding;
          return { id: 'c-4', name: 'Di' };
        });
        const first = hooks.handle(post(contactAdd('k-4')));
        await inside;
        const second = await hooks.handle(post(contactAdd('k-4')));
        release();
        expect(second.status).toBe(409);
        expect((await first).status).toBe(200);
      },
    );

    it('a listener outliving replyTimeoutMs keeps the key: the retry meanwhile is 409, never run beside it', async () => {
      const hooks = new WebhookHandler({
        secret: 'hook-secret',
        dedupe: opened.store.dedupe,
        dispatch: 'await',
        replyTimeoutMs: 500, // room for the retry to open a connection of its own on a busy machine
      });
      hooks.on('error', () => {});
      hooks.respond('crm_entities.contact_add', async () => ({ id: 'c-6', name: 'Flo' }));
      let running = 0;
      let most = 0;
      let runs = 0;
      let finished: () => void = () => {};
      const ended = new Promise<void>((resolve) => {
        finished = resolve;
      });
      hooks.on('webhook', async () => {
        runs++;
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        running--;
        finished();
      });
      expect((await hooks.handle(post(contactAdd('k-6')))).status).not.toBe(200);
      // The retry on another instance, whose own deadline a busy machine cannot run out.
      const other = new WebhookHandler({
        secret: 'hook-secret',
        dedupe: opened.store.dedupe,
        dispatch: 'await',
      });
      other.on('error', () => {});
      other.on('webhook', () => void runs++);
      const meanwhile = await other.handle(post(contactAdd('k-6')));
      // PGlite is one connection: the retry's transaction waits for the first to commit, and finds
      // the key done. A server answers it at once: held elsewhere.
      expect(meanwhile.status).toBe(onPGlite(target) ? 200 : 409);
      await ended;
      await new Promise((resolve) => setTimeout(resolve, 100)); // the late commit
      const after = await hooks.handle(post(contactAdd('k-6')));
      expect(after.status).toBe(200);
      expect(runs).toBe(1);
      expect(most).toBe(1);
    });

    it('keeps the DedupeStore contract for callers of claim: processing while held, a kept reply across a release, done', async () => {
      const d = opened.store.dedupe;
      const first = await d.claim('c-1', 60_000);
      expect(first).toMatchObject({ state: 'claimed' });
      expect(await d.claim('c-1', 60_000)).toEqual({ state: 'processing' });
      const token = (first as { token?: string }).token;
      await d.keepReply('c-1', { id: 'x' }, 60_000);
      await d.release('c-1', 'another-token'); // not this claim's: nothing happens
      expect(await d.claim('c-1', 60_000)).toEqual({ state: 'processing' });
      await d.release('c-1', token);
      const again = await d.claim('c-1', 60_000);
      expect(again).toMatchObject({ state: 'claimed', reply: { id: 'x' } });
      await d.complete('c-1', 60_000, { id: 'x' }, (again as { token?: string }).token);
      expect(await d.claim('c-1', 60_000)).toEqual({ state: 'done', reply: { id: 'x' } });
      expect(await d.claim('c-2', 1)).toMatchObject({ state: 'claimed' });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await d.claim('c-2', 60_000)).toMatchObject({ state: 'claimed' }); // the lease ran out
    });

    it('other stores keep working as before: without respondInTransaction the responder gets no tx', async () => {
      const hooks = new WebhookHandler({ secret: 'hook-secret', dispatch: 'await' });
      let seen: unknown = 'unset';
      hooks.respond('crm_entities.contact_add', async (_event, context) => {
        seen = context.tx;
        return { id: 'c-5', name: 'Ed' };
      });
      expect((await hooks.handle(post(contactAdd('k-5')))).status).toBe(200);
      expect(seen).toBeUndefined();
    });
  });
}
