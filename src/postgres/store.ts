import { GatewayError } from '../core/errors.js';
import { PostgresDedupeStore } from './dedupe-store.js';
import { PostgresDeliveryStore } from './delivery-store.js';
import { Database, driverOf, type PostgresDatabase } from './driver.js';
import { PostgresInbox } from './inbox.js';
import { PostgresOutbox } from './outbox.js';
import { type PruneOptions, type PruneResult, prune } from './prune.js';
import { migrate, migrationSql, tablesOf } from './schema.js';
import type { PostgresTransaction } from './transaction-type.js';
import { PostgresWindowStore } from './window-store.js';

/** Options of {@link postgresStore}. */
export interface PostgresStoreOptions {
  /** The schema of the store's tables (a lowercase identifier). @default 'messaging_gateway' */
  schema?: string;
}

/** Options of `store.migrationSql()`. */
export interface MigrationSqlOptions {
  /** The schema the SQL creates the tables in. @default the store's `schema` */
  schema?: string;
}

/** What {@link postgresStore} gives: one part per job, sharing the database `D`. */
export interface PostgresStore<D = PostgresDatabase> {
  /** The schema the tables live in. */
  readonly schema: string;
  /**
   * Creates or updates the tables (idempotent; instances starting together apply each migration
   * once). Resolves to the names of the migrations applied now: empty when up to date.
   */
  migrate(): Promise<string[]>;
  /**
   * The whole SQL of the tables, for your own migration tool (`prisma migrate dev --create-only`,
   * `drizzle-kit generate --custom`, a Knex migration, Flyway): every migration in order, each
   * creating the schema if missing, then the record of each in the schema's `migrations` table, so
   * `migrate()` afterwards finds nothing to do. Idempotent, like `migrate()`.
   * @example
   * ```ts
   * writeFileSync('prisma/migrations/20260101000000_messaging_gateway/migration.sql', store.migrationSql());
   * ```
   * @throws GatewayValidationError for a `schema` that is not a lowercase identifier
   */
  migrationSql(options?: MigrationSqlOptions): string;
  /** A `DedupeStore` whose CRM responders run in a transaction that keeps their reply (`dedupe:`). */
  readonly dedupe: PostgresDedupeStore;
  /** The transactional inbox: the handler's `dispatch`, and `work(hooks)` for workers. */
  readonly inbox: PostgresInbox;
  /** A `DeliveryStore` for `DeliveryTracker` (statuses in a table, NOTIFY to every instance). */
  readonly deliveries: PostgresDeliveryStore;
  /** The transactional outbox: `send(tx, params)` in the caller's transaction, `relay(client)` sends. */
  readonly outbox: PostgresOutbox;
  /**
   * A `WindowStore` for `ConversationWindows`: what any instance heard of each chat's last inbound
   * message and each channel's transport and tier, so a send on any instance is judged by it.
   * @example
   * ```ts
   * const windows = new ConversationWindows({ store: store.windows }).attach(hooks);
   * const client = new GatewayClient({ windows });
   * ```
   */
  readonly windows: PostgresWindowStore;
  /**
   * Deletes finished rows older than `olderThanMs`: done deliveries, delivery statuses, sends
   * that reached the service, and idempotency keys past their time to live. Dead deliveries,
   * sends left `unknown` and anything still under way stay. Deletes in batches of `batchSize`
   * (default 1,000), each its own short statement; run it from a timer or a scheduled job on one
   * instance (several at once are harmless). Resolves to the rows deleted per table.
   * @example
   * ```ts
   * setInterval(() => void store.prune({ olderThanMs: 7 * 24 * 3_600_000 }).catch(console.error), 3_600_000);
   * ```
   * @throws GatewayError when `olderThanMs` or `batchSize` is not a whole number in range
   */
  prune(options: PruneOptions): Promise<PruneResult>;
  /**
   * The transaction a listener or responder runs in (`context.tx`), typed for this store's
   * driver or ORM: a pg `PoolClient` (or the `Client`), postgres.js's `TransactionSql`, PGlite's
   * `Transaction`; Prisma's `Prisma.TransactionClient`, Drizzle's `tx`, Kysely's `Transaction<DB>`,
   * Knex's `Knex.Transaction`. No cast, and no other driver's types needed.
   * @example
   * ```ts
   * hooks.on('message.add', async ({ data }, context) => {
   *   const tx = store.tx(context);   // a pg PoolClient when the store was made on a pg Pool
   *   await tx.query('INSERT INTO crm_messages (text) VALUES ($1)', [data[0]?.text]);
   * });
   * ```
   * @throws GatewayError when `context` has no `tx` (the listener was not run by this store's
   * worker, or the responder by its dedupe)
   */
  tx(context: { tx?: unknown }): PostgresTransaction<D>;
}

/**
 * Keeps the SDK's state in the CRM's own PostgreSQL and runs the user's code in the same
 * transactions as its bookkeeping, so a contact created by a responder, a message stored by a
 * listener and a send promised in a business transaction each happen exactly once, across
 * crashes. `db` is the user's driver: a pg `Pool` or `Client`, a postgres.js `sql`, or a PGlite;
 * or the user's ORM: a Prisma client (7, with a driver adapter), a Drizzle database, a Kysely or
 * a Knex instance, whose own transaction listeners and responders then get as `tx`. On Prisma,
 * Kysely and Knex, which expose no connection to LISTEN on, `store.deliveries` polls.
 * @example
 * ```ts
 * import { PGlite } from '@electric-sql/pglite';
 * import { WebhookHandler } from 'messaging-gateway-sdk';
 * import { postgresStore } from 'messaging-gateway-sdk/postgres';
 *
 * const store = postgresStore(new PGlite());
 * await store.migrate();
 * const hooks = new WebhookHandler({ secret: 'change-me', dedupe: store.dedupe, dispatch: store.inbox });
 * const worker = store.inbox.work(hooks, { concurrency: 4 });
 * await worker.stop();
 * ```
 * @throws GatewayError when `db` is none of the drivers; GatewayValidationError for a bad `schema`
 */
export function postgresStore<D extends PostgresDatabase>(
  db: D,
  options: PostgresStoreOptions = {},
): PostgresStore<D> {
  const tables = tablesOf(options.schema);
  const database = new Database(driverOf(db));
  return {
    schema: tables.schema,
    migrate: () => migrate(database, tables),
    migrationSql: (sqlOptions = {}) => migrationSql(tablesOf(sqlOptions.schema ?? tables.schema)),
    dedupe: new PostgresDedupeStore(database, tables),
    inbox: new PostgresInbox(database, tables),
    deliveries: new PostgresDeliveryStore(database, tables),
    outbox: new PostgresOutbox(database, tables),
    windows: new PostgresWindowStore(database, tables),
    prune: (options) => prune(database, tables, options),
    tx: (context) => txOf(context) as PostgresTransaction<D>,
  };
}

/** `context.tx`, or a typed error saying why there is none. */
function txOf(context: { tx?: unknown } | undefined): unknown {
  if (context?.tx === undefined || context.tx === null) {
    throw new GatewayError(
      'store.tx(context): context has no tx; it is given to listeners run by store.inbox.work and to responders under dedupe: store.dedupe',
    );
  }
  return context.tx;
}
