// The migrations are plain SQL files (src/postgres/sql/*.sql) read through a generated module; a
// .sql edited without regenerating must not ship. A custom schema replaces the default one.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderSqlModule, SQL_MODULE_FILE } from '../../scripts/sql-module.js';
import { GatewayValidationError } from '../../src/core/errors.js';
import { statementsOf, tablesOf } from '../../src/postgres/schema.js';
import { MIGRATIONS } from '../../src/postgres/sql-sources.js';
import { postgresStore } from '../../src/postgres/store.js';

describe('the PostgreSQL migrations', () => {
  it('src/postgres/sql-sources.ts is up to date (npx tsx scripts/build-sql.ts)', () => {
    expect(readFileSync(SQL_MODULE_FILE, 'utf8')).toBe(renderSqlModule());
  });

  it('every statement may run again (IF NOT EXISTS, DROP NOT NULL) and names the schema given', () => {
    for (const statement of MIGRATIONS.flatMap((m) => statementsOf(m.sql, 'crm'))) {
      // CREATE … IF NOT EXISTS "crm"…, or ALTER TABLE "crm"… ADD COLUMN IF NOT EXISTS / DROP NOT NULL
      expect(statement).toMatch(
        /IF NOT EXISTS [^(]*"crm"(\.|$)|"crm"\.\w+ (ADD COLUMN IF NOT EXISTS|ALTER COLUMN \w+ DROP NOT NULL$)/,
      );
      expect(statement).not.toContain('messaging_gateway');
    }
  });

  it('store.migrationSql({ schema }) is every migration in order for that schema, then their record', () => {
    const store = postgresStore({ query() {}, connect() {} }, { schema: 'crm' });
    const sql = store.migrationSql({ schema: 'crm_gateway' });
    expect(sql).not.toContain('messaging_gateway');
    expect(sql).not.toMatch(/"crm"/);
    const starts = MIGRATIONS.map((m) => sql.indexOf(`-- ${m.name}\n`));
    expect(starts.every((at) => at >= 0)).toBe(true);
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
    expect(sql).toContain('CREATE SCHEMA IF NOT EXISTS "crm_gateway";');
    expect(sql).toContain(
      `INSERT INTO "crm_gateway".migrations (name) VALUES ${MIGRATIONS.map((m) => `('${m.name}')`).join(', ')} ON CONFLICT (name) DO NOTHING;`,
    );
    expect(store.migrationSql()).toContain('"crm".inbox'); // the store's own schema by default
    expect(sql).not.toContain('?'); // Knex's raw would read one as a binding
    expect(() => store.migrationSql({ schema: 'Bad"' })).toThrow(GatewayValidationError);
  });

  it('refuses a schema that is not a plain identifier, naming the option', () => {
    for (const schema of ['x"; DROP TABLE y; --', 'Upper', '', '1abc']) {
      expect(() => tablesOf(schema)).toThrow(GatewayValidationError);
    }
    expect(() => postgresStore({}, {})).toThrow(/pg Pool or Client, a postgres.js `sql`, a PGlite/);
  });
});
