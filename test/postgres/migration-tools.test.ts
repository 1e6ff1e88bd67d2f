// The SQL in the user's own migration tool (DESIGN: The ORM the CRM already uses): each shipped
// file (src/postgres/sql/*.sql, copied as it is to dist/postgres/sql/) runs as it is, in order,
// on an empty database, creating its schema itself, through psql, Prisma's migrate, drizzle-kit
// and a Knex migration; `store.migrationSql({ schema })` runs as one script too, after which
// `migrate()` finds nothing to do. On a real PostgreSQL (skipped without one).
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresStore } from '../../src/postgres/store.js';
import { postgresBinDir } from '../support/postgres-server.js';
import { postgresTargets } from '../support/postgres-targets.js';

const run = promisify(execFile);
const SQL_DIR = join(import.meta.dirname, '..', '..', 'src', 'postgres', 'sql');
/** The shipped files, in the order they run: however many there are. */
const FILES = readdirSync(SQL_DIR)
  .filter((file) => file.endsWith('.sql'))
  .sort();
const TABLES = ['dedupe', 'inbox', 'outbox', 'statuses'];
const DRIZZLE_KIT = join(import.meta.dirname, '..', '..', 'node_modules', 'drizzle-kit', 'bin.cjs');

const server = postgresTargets().find((target) => target.name === 'pg');

describe.skipIf(!server)('the shipped SQL in your own migration tool', () => {
  let dir: string;
  let admin: pg.Client;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mgsdk-migrations-'));
    admin = new pg.Client({ connectionString: server?.url() });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A new empty database on the server; its URL. */
  async function emptyDatabase(name: string): Promise<string> {
    await admin.query(`CREATE DATABASE ${name}`);
    const url = server?.url() ?? '';
    return url.replace(/\/postgres$/, `/${name}`);
  }

  /** The store's tables in `schema` exist, and `migrate()` on them succeeds; what it applied. */
  async function tablesThere(url: string, schema = 'messaging_gateway'): Promise<string[]> {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    try {
      const { rows } = await pool.query(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1',
        [schema],
      );
      expect(rows.map((r) => r.table_name)).toEqual(expect.arrayContaining(TABLES));
      return await postgresStore(pool, { schema }).migrate();
    } finally {
      await pool.end();
    }
  }

  it('each file creates its own schema (a file added later must too)', () => {
    expect(FILES.length).toBeGreaterThanOrEqual(2);
    for (const file of FILES) {
      const statements = readFileSync(join(SQL_DIR, file), 'utf8').replace(/^\s*--.*$/gm, '');
      expect(statements.trim(), file).toMatch(/^CREATE SCHEMA IF NOT EXISTS messaging_gateway;/);
    }
  });

  it('psql -f runs each file as it is, twice', async () => {
    const url = await emptyDatabase('tool_psql');
    const psql = join(postgresBinDir() as string, 'psql');
    for (const round of [1, 2]) {
      for (const file of FILES) {
        const args = ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-f', join(SQL_DIR, file)];
        await expect(run(psql, args), `${file}, round ${round}`).resolves.toBeDefined();
      }
    }
    expect(await tablesThere(url)).toEqual(FILES.map((f) => f.slice(0, -4))); // recorded by migrate()
  });

  it("Prisma's migrate: each file as its migration.sql, applied as Prisma's engine applies one (a single script)", async () => {
    // `prisma migrate deploy` needs Prisma's schema engine, a binary it downloads (not from the
    // npm registry): where it cannot, this does what the engine does with each migration.sql, one
    // script sent whole, in its own implicit transaction.
    const url = await emptyDatabase('tool_prisma');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const file of FILES) {
        const folder = join(dir, 'prisma', 'migrations', `2026010100000${FILES.indexOf(file)}_gateway`);
        mkdirSync(folder, { recursive: true });
        writeFileSync(join(folder, 'migration.sql'), readFileSync(join(SQL_DIR, file)));
        await client.query(readFileSync(join(folder, 'migration.sql'), 'utf8'));
      }
    } finally {
      await client.end();
    }
    expect(await tablesThere(url)).toHaveLength(FILES.length);
  });

  it('drizzle-kit: each file as a custom migration (generate --custom), then drizzle-kit migrate', async () => {
    const url = await emptyDatabase('tool_drizzle');
    const project = join(dir, 'drizzle');
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, 'schema.ts'), 'export {};\n');
    const config = { dialect: 'postgresql', schema: './schema.ts', out: './drizzle', dbCredentials: { url } };
    writeFileSync(join(project, 'drizzle.config.json'), JSON.stringify(config));
    const kit = (...args: string[]) =>
      run(process.execPath, [DRIZZLE_KIT, ...args, '--config', 'drizzle.config.json'], {
        cwd: project,
      });
    for (const file of FILES) {
      const name = `messaging_gateway_${file.slice(0, 3)}`;
      await kit('generate', '--custom', '--name', name);
      const [custom] = readdirSync(join(project, 'drizzle')).filter((f) => f.endsWith(`_${name}.sql`));
      writeFileSync(join(project, 'drizzle', custom as string), readFileSync(join(SQL_DIR, file)));
    }
    await expect(kit('migrate')).resolves.toBeDefined(); // exits 0
    expect(await tablesThere(url)).toHaveLength(FILES.length);
  }, 120_000);

  it('Knex: a migration per file, knex.raw of its text, through knex.migrate.latest()', async () => {
    const url = await emptyDatabase('tool_knex');
    const folder = join(dir, 'knex-migrations');
    mkdirSync(folder, { recursive: true });
    for (const file of FILES) {
      const sql = JSON.stringify(readFileSync(join(SQL_DIR, file), 'utf8'));
      writeFileSync(
        join(folder, `${file.slice(0, -4)}.cjs`),
        `exports.up = (knex) => knex.raw(${sql});\nexports.down = () => {};\n`,
      );
    }
    const { default: knex } = await import('knex');
    const db = knex({ client: 'pg', connection: url });
    try {
      const [, applied] = (await db.migrate.latest({ directory: folder, loadExtensions: ['.cjs'] })) as [
        number,
        string[],
      ];
      expect(applied).toHaveLength(FILES.length);
    } finally {
      await db.destroy();
    }
    expect(await tablesThere(url)).toHaveLength(FILES.length);
  });

  it("Kysely: store.migrationSql() through sql.raw in a migration of Kysely's Migrator", async () => {
    const url = await emptyDatabase('tool_kysely');
    const { Kysely, PostgresDialect, sql } = await import('kysely');
    const { Migrator } = await import('kysely/migration');
    const db = new Kysely<unknown>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url }) }),
    });
    try {
      const up = async (k: typeof db) => void (await sql.raw(postgresStore(k).migrationSql()).execute(k));
      const migrator = new Migrator({
        db,
        provider: { getMigrations: async () => ({ messaging_gateway: { up } }) },
      });
      const { error, results } = await migrator.migrateToLatest();
      expect(error).toBeUndefined();
      expect(results?.map((r) => r.status)).toEqual(['Success']);
    } finally {
      await db.destroy();
    }
    expect(await tablesThere(url)).toEqual([]); // recorded: migrate() finds nothing to do
  });

  it('store.migrationSql({ schema }) runs as one script; migrate() then finds nothing to do', async () => {
    const url = await emptyDatabase('tool_whole');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const sql = postgresStore(client).migrationSql({ schema: 'crm_gateway' });
      await client.query(sql);
      await client.query(sql); // idempotent
    } finally {
      await client.end();
    }
    expect(await tablesThere(url, 'crm_gateway')).toEqual([]);
  });
});
