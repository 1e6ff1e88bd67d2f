// `messaging-gateway postgres migrate` (DESIGN: Testing kit and command line): creates the tables
// in the database of --url or DATABASE_URL, prints what it did, and changes nothing the second time.
import { describe, expect, it } from 'vitest';
import { postgresTargets } from '../support/postgres-targets.js';
import { runBin } from '../support/run-bin.js';

const server = postgresTargets().find((target) => target.name === 'pg');

describe('messaging-gateway postgres sql', () => {
  it('prints the whole SQL for a schema, connecting to nothing; --json as one document', async () => {
    const text = await runBin(['postgres', 'sql', '--schema', 'crm_gateway'], undefined, {
      DATABASE_URL: '',
    });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('CREATE SCHEMA IF NOT EXISTS "crm_gateway";');
    expect(text.stdout).toContain('CREATE TABLE IF NOT EXISTS "crm_gateway".inbox');
    expect(text.stdout).not.toContain('messaging_gateway');
    const json = await runBin(['postgres', 'sql', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, schema: 'messaging_gateway' });
    expect(JSON.parse(json.stdout).sql).toContain('"messaging_gateway".outbox');
  });

  it('is a usage error for a schema that is not an identifier, with its help on --help', async () => {
    const bad = await runBin(['postgres', 'sql', '--schema', 'x"; drop']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--schema');
    const help = await runBin(['postgres', 'sql', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('messaging-gateway postgres sql [--schema S] [--json]');
  });
});

describe.skipIf(!server)('messaging-gateway postgres migrate', () => {
  it('applies the migrations once: the second run says there is nothing to do', async () => {
    const url = server?.url() as string;
    const first = await runBin(['postgres', 'migrate', '--url', url, '--schema', 'cli_one']);
    expect(first.stdout).toContain('schema cli_one: applied 001_tables');
    expect(first.code).toBe(0);
    const second = await runBin(['postgres', 'migrate', '--json', '--schema', 'cli_one'], undefined, {
      DATABASE_URL: url,
    });
    expect(JSON.parse(second.stdout)).toEqual({ ok: true, schema: 'cli_one', applied: [] });
  });

  it('is a usage error without a database or with a schema that is not an identifier', async () => {
    const none = await runBin(['postgres', 'migrate'], undefined, { DATABASE_URL: '' });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('DATABASE_URL');
    const bad = await runBin([
      'postgres',
      'migrate',
      '--url',
      server?.url() as string,
      '--schema',
      'x"; drop',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('schema');
  });
});
