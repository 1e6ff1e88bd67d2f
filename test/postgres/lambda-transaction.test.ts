// A store's transaction that outlives the answer (DESIGN: The CRM's own database; Runtimes beyond
// a server): a responder running past replyTimeoutMs keeps its transaction open after the 500,
// and createLambdaHandler must not return before that transaction ends, or Lambda freezes the
// process inside it. On PGlite and a real PostgreSQL (pg, postgres.js).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLambdaHandler } from '../../src/webhooks/adapters/lambda.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { fixture } from '../support/fixtures.js';
import { httpApiEvent } from '../support/lambda-events.js';
import { openStore, postgresTargets, sqlOn } from '../support/postgres-targets.js';

const contactAdd = (key: string) => {
  const body = fixture('v2', 'crm_entities.contact_add') as { meta: { idempotency_key: string } };
  return JSON.stringify({ ...body, meta: { ...body.meta, idempotency_key: key } });
};

for (const target of postgresTargets()) {
  describe(`createLambdaHandler with store.dedupe on ${target.name}`, () => {
    let opened: Awaited<ReturnType<typeof openStore>>;
    beforeEach(async () => {
      opened = await openStore(target);
      await sqlOn(opened.db, `CREATE TABLE "${opened.schema}".contacts (id serial PRIMARY KEY)`);
    });
    afterEach(async () => opened.close());

    it('does not return before the transaction of a responder that outlived replyTimeoutMs commits', async () => {
      const hooks = new WebhookHandler({
        secret: 'hook-secret',
        dedupe: opened.store.dedupe,
        dispatch: 'await',
        replyTimeoutMs: 100,
      });
      hooks.on('error', () => {});
      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      hooks.respond('crm_entities.contact_add', async (_event, { tx }) => {
        await gate;
        const [row] = await sqlOn(tx, `INSERT INTO "${opened.schema}".contacts DEFAULT VALUES RETURNING id`);
        return { id: String(row?.id), name: 'Customer' };
      });
      const lambda = createLambdaHandler(hooks);
      const event = httpApiEvent('/hooks', 'secret=hook-secret', { body: contactAdd('late-1') });
      let returned = false;
      const result = lambda(event).then((answer) => {
        returned = true;
        return answer;
      });
      await new Promise((resolve) => setTimeout(resolve, 300)); // past replyTimeoutMs: answered 500
      expect(returned).toBe(false);
      release();
      expect((await result).statusCode).toBe(500);
      const [key] = await sqlOn(
        opened.db,
        `SELECT state FROM "${opened.schema}".dedupe WHERE key LIKE '%late-1%'`,
      );
      expect(key?.state).toBe('done'); // committed before the function returned
    });
  });
}
