/**
 * Entry point `messaging-gateway-sdk/postgres`: dedupe, the transactional inbox and outbox,
 * delivery statuses and conversation windows in the CRM's own PostgreSQL. Pass the driver you already use in: `pg`
 * (node-postgres), `postgres` (postgres.js) or `@electric-sql/pglite`, or the ORM on it: Prisma
 * (7, with a driver adapter), Drizzle, Kysely or Knex. This entry loads none of them (on Drizzle
 * it imports drizzle-orm's `sql` once it is given a Drizzle database). The SQL of its tables is in
 * the package (`dist/postgres/sql/*.sql`, and `store.migrationSql()`) for your own migration tool.
 * @module
 */

export { PostgresDedupeStore } from './postgres/dedupe-store.js';
export { PostgresDeliveryStore } from './postgres/delivery-store.js';
export type { PostgresDatabase } from './postgres/driver.js';
export { type InboxDelivery, PostgresInbox } from './postgres/inbox.js';
export { InboxDeliveryError, type InboxDeliveryErrorCode } from './postgres/inbox-errors.js';
export type { InboxWorker, InboxWorkOptions, ReceivingHandler } from './postgres/inbox-worker.js';
export { type OutboxRow, type OutboxStatus, PostgresOutbox } from './postgres/outbox.js';
export type { OutboxRelay, OutboxRelayOptions, SendingClient } from './postgres/outbox-relay.js';
export type { LoopErrorHandler } from './postgres/poll-loops.js';
export type { PruneOptions, PruneResult } from './postgres/prune.js';
export {
  type MigrationSqlOptions,
  type PostgresStore,
  type PostgresStoreOptions,
  postgresStore,
} from './postgres/store.js';
export type { PostgresTransaction } from './postgres/transaction-type.js';
export { PostgresWindowStore } from './postgres/window-store.js';
export type { ClaimResult, DedupeStore } from './webhooks/receive/dedupe-store.js';
export type { ListenerContext } from './webhooks/receive/events.js';
export type { WebhookQueue } from './webhooks/receive/options.js';
