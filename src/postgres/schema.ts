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

/** The statements of a migration file for `schema`: comments dropped, split at each `;`. */
export function statementsOf(sql: string, schema: string): string[] {
  return sql
    .replace(/^\s*--.*$/gm, '')
    .replaceAll('messaging_gateway.', `"${schema}".`)
    .split(';')
    .map((statement) => statement.trim())
    .filter(Boolean);
}

/**
 * Creates the schema and applies the migrations not applied yet, in one transaction under an
 * advisory lock (so instances starting together apply each once). Resolves to the names applied
 * now: empty when the database was up to date.
 */
export function migrate(db: Database, tables: Tables): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1)) AS locked', [
      `mgsdk-migrate:${tables.schema}`,
    ]);
    await tx.query(`CREATE SCHEMA IF NOT EXISTS "${tables.schema}"`);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS ${tables.migrations} (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
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
