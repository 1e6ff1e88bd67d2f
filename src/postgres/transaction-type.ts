/**
 * The transaction handle that listeners and responders get as `tx` when the store was made on a
 * database of type `D`, worked out from `D`'s own methods (no driver's or ORM's types are
 * imported, so it compiles whichever are installed):
 * - Prisma: the `tx` of `$transaction(async (tx) => …)`, `Prisma.TransactionClient`;
 * - Kysely: the `trx` of `db.transaction().execute(…)`, its `Transaction<DB>`;
 * - the `tx` of `db.transaction(async (tx) => …)`: Drizzle's `PgTransaction` (with the
 *   database's schema), Knex's `Knex.Transaction`, PGlite's `Transaction`;
 * - postgres.js's `TransactionSql` for its `sql`;
 * - a pg `PoolClient` for a pg `Pool`, the `Client` itself for a pg `Client`.
 *
 * `store.tx(context)` returns it.
 */
export type PostgresTransaction<D> = D extends {
  /** Prisma's interactive transaction. */
  $transaction(fn: (tx: infer Tx) => Promise<unknown>, options?: never): unknown;
}
  ? Tx
  : D extends {
        /** Kysely's transaction builder. */
        transaction(): {
          /** Runs the callback in the transaction. */
          execute(fn: (trx: infer Tx) => Promise<unknown>): unknown;
        };
      }
    ? Tx
    : D extends {
          /** Drizzle's, Knex's and PGlite's transaction with a callback. */
          transaction(fn: (tx: infer Tx) => Promise<unknown>, config?: never): unknown;
        }
      ? Tx
      : D extends {
            /** postgres.js's transaction. */
            begin(options: string, cb: (sql: infer Tx) => unknown): unknown;
          }
        ? Tx
        : D extends {
              totalCount: number;
              /** A pg Pool's checkout of a client. */
              connect(callback: (err: never, client: infer C, done: never) => void): void;
            }
          ? NonNullable<C>
          : D;
