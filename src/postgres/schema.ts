import { GatewayValidationError } from '../core/errors.js';
import type { Database } from './driver.js';
import { MIGRATIONS } from './sql-sources.js';

/** The schema the migrations name; `postgresStore`'s `schema` option replaces it. */
export const DEFAULT_SCHEMA = 'messaging_gateway';

/** The qualified names of the store's tables in one schema. */
export interface Tables {
  schema: string;
  dedupe: string;
  inbox: string;
  statuses: string;
  outbox: string;
  migrations: string;
  windowChannels: string;
  windowChats: string;
  windowListening: string;
}

/** The tables of `schema`; a schema name that is not a plain identifier is refused. */
export function tablesOf(schema: string = DEFAULT_SCHEMA): Tables {
  if (typeof schema !== 'string' || !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new GatewayValidationError(
      [{ path: ['schema'], message: 'a lowercase identifier: letters, digits and _, at most 63' }],
      'postgresStore option',
    );
  }
  const q = (table: string) => `"${schema}".${table}`;
  return {
    schema,
    dedupe: q('dedupe'),
    inbox: q('inbox'),
    statuses: q('statuses'),
    outbox: q('outbox'),
    migrations: q('migrations'),
    windowChannels: q('window_channels'),
    windowChats: q('window_chats'),
    windowListening: q('window_listening'),
  };
}

/** A migration file's text for `schema`: each name of the default schema (comments too) replaced. */
const forSchema = (sql: string, schema: string): string =>
  sql.replace(new RegExp(`\\b${DEFAULT_SCHEMA}\\b`, 'g'), `"${schema}"`);

/** The statements of a migration file for `schema`: comments dropped, split at each `;`. */
export function statementsOf(sql: string, schema: string): string[] {
  return forSchema(sql.replace(/^\s*--.*$/gm, ''), schema)
    .split(';')
    .map((statement) => statement.trim())
    .filter(Boolean);
}

/** The table recording which migrations were applied (by `migrate()`, or by {@link migrationSql}'s SQL). */
const migrationsTable = (t: Tables) =>
  `CREATE TABLE IF NOT EXISTS ${t.migrations} (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`;

/**
 * The whole SQL of the migrations for `tables.schema`, for the user's own migration tool (as
 * pg-boss's `getConstructionPlans(schema)`): every file in order, then the record of each in the
 * schema's `migrations` table, so a later `migrate()` finds nothing to do. Idempotent as the files.
 */
export function migrationSql(t: Tables): string {
  const names = MIGRATIONS.map((m) => `('${m.name}')`).join(', ');
  return [
    `-- messaging-gateway-sdk/postgres: the tables in the schema "${t.schema}" (${MIGRATIONS.length} migrations). Idempotent.`,
    ...MIGRATIONS.map((m) => `-- ${m.name}\n${forSchema(m.sql, t.schema).trim()}\n`),
    '-- What was applied, so store.migrate() finds nothing to do.',
    `${migrationsTable(t)};`,
    `INSERT INTO ${t.migrations} (name) VALUES ${names} ON CONFLICT (name) DO NOTHING;`,
    '',
  ].join('\n');
}

/**
 * Creates the schema and applies the migrations not applied yet, in one transaction under an
 * advisory lock (so instances starting together apply each once). Resolves to the names applied
 * now: empty when the database was up to date.
 */
export function migrate(db: Database, tables: Tables): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT true AS locked FROM pg_advisory_xact_lock(hashtext($1))', [
      `mgsdk-migrate:${tables.schema}`,
    ]);
    await tx.query(`CREATE SCHEMA IF NOT EXISTS "${tables.schema}"`);
    await tx.query(migrationsTable(tables));
    const rows = await tx.query(`SELECT name FROM ${tables.migrations}`);
    const done = new Set(rows.map((row) => String(row.name)));
    const applied: string[] = [];
    for (const migration of MIGRATIONS) {
      if (done.has(migration.name)) continue;
      for (const statement of statementsOf(migration.sql, tables.schema)) await tx.query(statement);
      await tx.query(`INSERT INTO ${tables.migrations} (name) VALUES ($1)`, [migration.name]);
      applied.push(migration.name);
    }
    return applied;
  });
}
