import { migrationSql, tablesOf } from '../postgres/schema.js';
import { postgresStore } from '../postgres/store.js';
import { EXIT, type Io, UsageError } from './io.js';
import { parseOptions } from './options.js';

/** A pg Pool on `url`, from the user's own `pg` (an optional peer): the bin bundles no driver. */
async function openPool(url: string): Promise<{ db: object; end(): Promise<void> }> {
  let pg: { default?: { Pool: new (o: object) => object }; Pool?: new (o: object) => object };
  try {
    pg = await import('pg' as string);
  } catch {
    throw new Error('this command uses the pg driver: npm install pg');
  }
  const Pool = (pg.default?.Pool ?? pg.Pool) as new (o: object) => { end(): Promise<void> };
  const pool = new Pool({ connectionString: url, max: 1 });
  return { db: pool, end: () => pool.end() };
}

/** The options of `postgres`. */
export const POSTGRES_OPTIONS = {
  url: { type: 'string' },
  schema: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/**
 * `messaging-gateway postgres migrate [--url URL] [--schema S] [--json]` and
 * `messaging-gateway postgres sql [--schema S] [--json]`.
 */
export async function postgres(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseOptions(args, POSTGRES_OPTIONS);
  const [command] = positionals;
  if ((command !== 'migrate' && command !== 'sql') || positionals.length > 1)
    throw new UsageError('the commands are: postgres migrate, postgres sql');
  if (command === 'sql') return printSql(values, io);
  const url = values.url ?? process.env.DATABASE_URL;
  if (!url) throw new UsageError('give --url, or set DATABASE_URL');
  const { schema } = tablesOf(values.schema); // a bad name is refused before connecting
  const { db, end } = await openPool(url);
  try {
    const applied = await postgresStore(db, { schema }).migrate();
    if (values.json) io.out(JSON.stringify({ ok: true, schema, applied }));
    else if (applied.length === 0) io.out(`schema ${schema} is up to date: nothing to do`);
    else io.out(`schema ${schema}: applied ${applied.join(', ')}`);
    return EXIT.ok;
  } finally {
    await end();
  }
}

/**
 * `postgres sql`: the whole SQL of the tables for a schema, for the user's migration tool; no
 * database needed. A bad schema name is a usage error.
 */
function printSql(values: { schema?: string; url?: string; json?: boolean }, io: Io): number {
  if (values.url !== undefined) throw new UsageError('postgres sql connects to no database: drop --url');
  let tables: ReturnType<typeof tablesOf>;
  try {
    tables = tablesOf(values.schema);
  } catch {
    throw new UsageError('--schema: a lowercase identifier: letters, digits and _, at most 63');
  }
  const sql = migrationSql(tables);
  if (values.json) io.out(JSON.stringify({ ok: true, schema: tables.schema, sql }));
  else io.out(sql.trimEnd());
  return EXIT.ok;
}
