// A store closed while its LISTEN connection comes back (the connection dropped, the store
// listening anew): the new LISTEN is stopped once, its pool client given back once. A real
// PostgreSQL through a pg Pool.
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresStore } from '../../src/postgres/store.js';
import { DeliveryTracker } from '../../src/tracking/delivery-tracker.js';
import { freshSchema, postgresTargets, until } from '../support/postgres-targets.js';

for (const target of postgresTargets({ pglite: false }).filter((t) => t.name === 'pg')) {
  describe('closing a store while it listens again, on pg', () => {
    const closing: (() => Promise<unknown>)[] = [];
    afterEach(async () => {
      for (const close of closing.splice(0).reverse()) await close();
    });

    it('gives the new LISTEN client back to the pool once, with no unhandled rejection', async () => {
      const rejections: unknown[] = [];
      const heard = (reason: unknown) => rejections.push(reason);
      process.on('unhandledRejection', heard);
      closing.push(async () => process.off('unhandledRejection', heard));
      const admin = new pg.Client({ connectionString: target.url() });
      admin.on('error', () => {}); // the server's shutdown after the file
      await admin.connect();
      closing.push(() => admin.end());
      const pool = new pg.Pool({ connectionString: target.url(), max: 4 });
      pool.on('error', () => {});
      closing.push(() => pool.end());
      const store = postgresStore(pool, { schema: freshSchema() });
      await store.migrate();
      const tracker = new DeliveryTracker({ store: store.deliveries });
      void tracker.waitFor('r-1', { until: 'sent', timeoutMs: 60_000 }).catch(() => undefined);
      const listening = async () => {
        const { rows } = await admin.query(`SELECT 1 FROM pg_stat_activity WHERE query LIKE 'LISTEN%'`);
        return rows.length === 1;
      };
      await until(listening);

      // The store's next connection is its LISTEN coming back: closed as it connects.
      let closed: Promise<void> | undefined;
      pool.once('connect', () => {
        closed = store.deliveries.close();
      });
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
      );
      await until(() => closed !== undefined);
      await closed;
      // Any second UNLISTEN of the store went on the same client before this statement: once it
      // is answered, a second give-back has been made.
      await until(() => pool.idleCount === pool.totalCount);
      await pool.query('SELECT 1');
      await new Promise((resolve) => setImmediate(resolve));
      expect(rejections).toEqual([]);
    }, 60_000);
  });
}
