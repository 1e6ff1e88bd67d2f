import type { Row, SqlDriver, SqlSession } from '../sql-driver.js';

/** What the stores use of a node-postgres `Pool`, `PoolClient` or `Client`. */
interface PgQueryable {
  query(text: string, params?: unknown[]): Promise<{ rows: Row[] }>;
}
type Notification = { channel: string; payload?: string };
interface PgClientLike extends PgQueryable {
  on(event: 'notification', listener: (message: Notification) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  off(event: 'notification', listener: (message: Notification) => void): unknown;
  off(event: 'error', listener: (error: Error) => void): unknown;
}
interface PgPoolClient extends PgClientLike {
  release(error?: Error | boolean): void;
}
interface PgPoolLike extends PgQueryable {
  connect(callback: (error: Error | undefined, client: PgPoolClient | undefined) => void): void;
  on(event: 'acquire', listener: (client: PgClientLike) => void): unknown;
  totalCount: number;
}

/** A pg Pool (has `totalCount`) or Client (has `connect` and `query`). */
export function isPg(db: unknown): db is PgPoolLike | PgClientLike {
  const d = db as Partial<PgPoolLike> | null;
  return typeof d?.query === 'function' && typeof d.connect === 'function';
}

const isPool = (db: PgPoolLike | PgClientLike): db is PgPoolLike =>
  typeof (db as PgPoolLike).totalCount === 'number';

const session = (c: PgQueryable): SqlSession => ({
  query: async (text, params) => (await c.query(text, params as unknown[])).rows,
});

/** A client's 'error' events, heard from the moment it is lent until `stop()`. */
interface Hearing {
  /** The first error heard: the connection is gone. */
  broken(): Error | undefined;
  stop(): void;
}

/**
 * Listens to `client`'s 'error' event while the store holds it. A connection PostgreSQL drops
 * (a terminated backend, a restart, `idle_in_transaction_session_timeout`) makes pg emit 'error'
 * on the client besides failing its statements; no one else listens to a client checked out of a
 * pool, and an 'error' nobody hears ends the process. Heard here, it only fails the statement
 * under way or the next one, and the store learns the connection is gone.
 */
function hear(client: PgClientLike): Hearing {
  let broken: Error | undefined;
  const heard = (error: Error) => {
    broken ??= error;
  };
  client.on('error', heard);
  return { broken: () => broken, stop: () => client.off('error', heard) };
}

/** The pools and clients heard by `hearUnderOrm`, each once however many stores share it. */
const heardUnderOrm = new WeakSet<object>();

/**
 * For an ORM that lends the connections itself (Drizzle on a pg Pool or Client): every client
 * heard for good, a Pool's from the moment it lends one (its 'acquire', emitted before pg-pool
 * stops listening to the client). pg-pool listens to a client only while it is idle, and the ORM
 * listens to none: a connection PostgreSQL drops while the ORM holds it (a terminated backend, a
 * restart) would emit an 'error' nobody hears, which ends the process. Heard, it only fails the
 * statements on that connection (the attempt is tried again), and pg-pool drops the client when
 * it is given back. An 'error' a lone Client emits also reaches the user's own listener, if any.
 */
export function hearUnderOrm(db: PgPoolLike | PgClientLike): void {
  const heard = () => {}; // the statements on the connection fail, and say why
  const hearOnce = (client: PgClientLike) => {
    if (heardUnderOrm.has(client)) return;
    heardUnderOrm.add(client);
    client.on('error', heard);
  };
  if (!isPool(db)) hearOnce(db);
  else if (!heardUnderOrm.has(db)) {
    heardUnderOrm.add(db);
    db.on('acquire', hearOnce);
  }
}

/**
 * A client of the pool, heard from the moment it is lent. pg-pool calls back at once; a promise
 * would resolve only after the rest of the data read with a new connection's first ReadyForQuery,
 * and a FATAL in that same read (a backend ended as it connected) would be emitted with nobody
 * listening.
 */
function lend(pool: PgPoolLike): Promise<{ client: PgPoolClient; hearing: Hearing }> {
  return new Promise((resolve, reject) => {
    pool.connect((error, client) => {
      if (error || !client) reject(error);
      else resolve({ client, hearing: hear(client) });
    });
  });
}

/**
 * BEGIN … COMMIT on `client` (ROLLBACK when `fn` throws). Returns the outcome and the connection's
 * failure, if it broke: a ROLLBACK that fails, or an 'error' heard meanwhile. A user's code that
 * threw leaves a healthy connection, rolled back and fit for the next transaction.
 */
async function inTransaction<T>(
  client: PgClientLike,
  fn: (tx: SqlSession, handle: unknown) => Promise<T>,
  broken: () => Error | undefined,
): Promise<{ result: T } | { error: unknown; broken: Error | undefined }> {
  try {
    await client.query('BEGIN');
    const result = await fn(session(client), client);
    await client.query('COMMIT');
    return { result };
  } catch (error) {
    const rollback = await client.query('ROLLBACK').then(
      () => undefined,
      (failed: unknown) => (failed instanceof Error ? failed : new Error(String(failed))),
    );
    return { error, broken: broken() ?? rollback };
  }
}

/** The result, or the failure thrown again. */
function outcome<T>(ended: { result: T } | { error: unknown }): T {
  if ('error' in ended) throw ended.error;
  return ended.result;
}

/**
 * node-postgres: a Pool lends a client per transaction. A lone Client is one connection: its
 * transactions, statements and LISTEN take turns, since a statement sent while a transaction is
 * open on it would run inside it (and be rolled back with it). Once PostgreSQL drops a lone
 * Client's connection, pg cannot connect it again: every later call fails (a Pool connects anew).
 */
export function pgDriver(db: PgPoolLike | PgClientLike): SqlDriver {
  if (isPool(db)) return poolDriver(db);
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: (broken: () => Error | undefined) => Promise<T>): Promise<T> => {
    const mine = turn.then(async () => {
      const hearing = hear(db);
      try {
        return await work(hearing.broken);
      } finally {
        hearing.stop();
      }
    });
    turn = mine.catch(() => undefined);
    return mine;
  };
  const statements = session(db);
  return {
    query: (text, params) => inTurn(() => statements.query(text, params)),
    transaction: (fn) => inTurn(async (broken) => outcome(await inTransaction(db, fn, broken))),
    listen: (channel, onPayload, onLost) =>
      listenOn(db, channel, onPayload, onLost, {
        query: (text) => inTurn(() => db.query(text)),
        done: () => undefined,
      }),
  };
}

/** A pg Pool: a client lent per transaction, dropped only when its connection broke. */
function poolDriver(pool: PgPoolLike): SqlDriver {
  return {
    ...session(pool),
    async transaction(fn) {
      const { client, hearing } = await lend(pool);
      const ended = await inTransaction(client, fn, hearing.broken);
      hearing.stop();
      client.release('broken' in ended ? ended.broken : undefined);
      return outcome(ended);
    },
    async listen(channel, onPayload, onLost) {
      const { client, hearing } = await lend(pool);
      return listenOn(client, channel, onPayload, onLost, {
        query: (text) => client.query(text),
        done: (broken) => {
          hearing.stop();
          client.release(broken);
        },
      });
    },
  };
}

/**
 * LISTEN on `client` through `use.query`; `use.done` gives the client back (with the error that
 * broke it). When the connection breaks once listening, listening stops and `onLost` is called:
 * the store listens anew. Broken before, the LISTEN itself fails, and so does this.
 */
async function listenOn(
  client: PgClientLike,
  channel: string,
  onPayload: (payload: string) => void,
  onLost: (() => void) | undefined,
  use: { query(text: string): Promise<unknown>; done(broken?: Error): void },
): Promise<() => Promise<void>> {
  const listener = (message: Notification) => {
    if (message.channel === channel) onPayload(message.payload ?? '');
  };
  let listening = false;
  let broken = false;
  const lost = (error: Error) => {
    if (broken) return;
    broken = true;
    client.off('notification', listener);
    use.done(error);
    if (listening) onLost?.();
  };
  client.on('notification', listener);
  client.on('error', lost);
  try {
    await use.query(`LISTEN "${channel}"`);
    listening = true;
  } catch (error) {
    client.off('notification', listener);
    client.off('error', lost);
    if (!broken) use.done(error as Error);
    throw error;
  }
  return async () => {
    if (broken) return;
    client.off('notification', listener);
    await use.query(`UNLISTEN "${channel}"`).catch(() => undefined);
    client.off('error', lost);
    use.done();
  };
}
