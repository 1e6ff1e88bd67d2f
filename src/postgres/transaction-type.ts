/**
 * The transaction handle that listeners and responders get as `tx` when the store was made on a
 * database of type `D`, worked out from `D`'s own methods (no driver's types are imported, so it
 * compiles whichever drivers are installed): a pg `PoolClient` for a pg `Pool`, the `Client`
 * itself for a pg `Client`, postgres.js's `TransactionSql` for its `sql`, PGlite's `Transaction`
 * for a PGlite. `store.tx(context)` returns it.
 */
export type PostgresTransaction<D> = D extends {
  begin(options: string, cb: (sql: infer Tx) => unknown): unknown;
}
  ? Tx
  : D extends {
        transaction(callback: (tx: infer Tx) => Promise<unknown>): Promise<unknown>;
        waitReady: unknown;
      }
    ? Tx
    : D extends {
          totalCount: number;
          connect(callback: (err: never, client: infer C, done: never) => void): void;
        }
      ? NonNullable<C>
      : D;
