// store.prune (DESIGN: The CRM's own database): finished rows older than the age given go, in
// bounded batches; dead deliveries, unknown sends, live keys and anything under way stay.
// On PGlite and a real PostgreSQL (pg, postgres.js).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatewayError, GatewayValidationError } from '../../src/core/errors.js';
import { openStore, postgresTargets, sqlOn } from '../support/postgres-targets.js';

const HOUR = 3_600_000;

for (const target of postgresTargets()) {
  describe(`store.prune on ${target.name}`, () => {
    let opened: Awaited<ReturnType<typeof openStore>>;
    beforeEach(async () => {
      opened = await openStore(target);
    }, 60_000); // the first opens the file's PGlite, slow on a busy machine
    afterEach(async () => opened.close());

    const s = () => `"${opened.schema}"`;
    const run = (text: string) => sqlOn(opened.db, text);
    const left = async (table: string, column: string) =>
      (await run(`SELECT ${column} AS v FROM ${s()}.${table} ORDER BY 1`)).map((r) => String(r.v));

    /** Rows of every table: `old-*` two hours old, `new-*` a minute old. */
    const seed = async () => {
      const old = `now() - interval '2 hours'`;
      const recent = `now() - interval '1 minute'`;
      await run(`INSERT INTO ${s()}.inbox (key, webhook, state, done_at) VALUES
        ('old-done-1', '{}', 'done', ${old}), ('old-done-2', '{}', 'done', ${old}),
        ('old-done-3', '{}', 'done', ${old}), ('new-done', '{}', 'done', ${recent}),
        ('old-dead', '{}', 'dead', NULL), ('old-pending', '{}', 'pending', NULL)`);
      await run(`UPDATE ${s()}.inbox SET created_at = ${old}`);
      await run(`INSERT INTO ${s()}.dedupe (key, state, expires_at) VALUES
        ('expired', 'done', now() - interval '1 second'), ('live', 'done', now() + interval '1 day')`);
      await run(`INSERT INTO ${s()}.statuses (request_id, updated_at) VALUES
        ('old-status', ${old}), ('new-status', ${recent})`);
      await run(`INSERT INTO ${s()}.outbox (params, status, request_id, updated_at) VALUES
        ('{}', 'delivered', 'old-delivered', ${old}), ('{}', 'failed', 'old-failed', ${old}),
        ('{}', 'unknown', 'old-unknown', ${old}), ('{}', 'pending', 'old-pending', ${old}),
        ('{}', 'sending', 'old-sending', ${old}), ('{}', 'read', 'new-read', ${recent})`);
    };

    it('deletes finished rows past the age, in batches, and keeps dead, unknown, live and open ones', async () => {
      await seed();
      const result = await opened.store.prune({ olderThanMs: HOUR, batchSize: 2 });
      expect(result).toEqual({ dedupeKeys: 1, inbox: 3, statuses: 1, outbox: 2, windows: 0 });
      expect(await left('inbox', 'key')).toEqual(['new-done', 'old-dead', 'old-pending']);
      expect(await left('dedupe', 'key')).toEqual(['live']);
      expect(await left('statuses', 'request_id')).toEqual(['new-status']);
      expect(await left('outbox', 'request_id')).toEqual([
        'new-read',
        'old-pending',
        'old-sending',
        'old-unknown',
      ]);
      expect(await opened.store.prune({ olderThanMs: HOUR })).toEqual({
        dedupeKeys: 0,
        inbox: 0,
        statuses: 0,
        outbox: 0,
        windows: 0,
      });
    });

    it('refuses a missing or negative age and a batch size below one, naming the option', async () => {
      await expect(opened.store.prune({} as never)).rejects.toThrow(/olderThanMs/);
      await expect(opened.store.prune({ olderThanMs: -1 })).rejects.toThrow(GatewayError);
      await expect(opened.store.prune({ olderThanMs: 0, batchSize: 0 })).rejects.toThrow(/batchSize/);
      // Called without options from plain JavaScript: the typed error of every bad option.
      await expect(opened.store.prune(undefined as never)).rejects.toThrow(GatewayValidationError);
    });
  });
}
