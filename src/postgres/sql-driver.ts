// The seam between the stores and a PostgreSQL driver; drivers/*.ts fill it, one file per driver.

/** A row as the driver returns it. */
export type Row = Record<string, unknown>;

/** What runs SQL: the database itself, or one transaction of it. */
export interface SqlSession {
  /** Runs one statement with `$1`-style parameters; the rows it returned. */
  query(text: string, params?: readonly unknown[]): Promise<Row[]>;
}

/**
 * The seam between the stores and a PostgreSQL driver: one statement, one transaction (given
 * the driver's own handle too, for the user's code), and LISTEN. One adapter per driver fills it.
 */
export interface SqlDriver extends SqlSession {
  /** Runs `fn` inside BEGIN … COMMIT (ROLLBACK when it throws). */
  transaction<T>(fn: (tx: SqlSession, handle: unknown) => Promise<T>): Promise<T>;
  /**
   * Calls `onPayload` with each NOTIFY on `channel` from now on; resolves once listening, to the
   * function that stops it. A NOTIFY sent while the listening connection is down is never heard,
   * so after such a gap the driver calls `onLost` when listening stopped with the connection (the
   * caller listens anew, then reads what it missed), or `onResumed` once it listens again by
   * itself (the caller reads what it missed). Absent when the handle exposes no connection to
   * listen on (Prisma, Kysely, Knex): the stores poll instead.
   */
  listen?(
    channel: string,
    onPayload: (payload: string) => void,
    onLost?: () => void,
    onResumed?: () => void,
  ): Promise<() => Promise<void>>;
}
