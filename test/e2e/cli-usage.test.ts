// A mistyped command line, as gh answers one: exit 2, the bin's own words (never node's parseArgs
// text), where the help is, and "Did you mean" for a near miss, in text and in --json alike.
import { describe, expect, it } from 'vitest';
import { BIN_RUNS_TIMEOUT_MS, runBin } from '../support/run-bin.js';

/** Node's own parseArgs wording, which the bin never shows. */
const NODE_TEXT = /Unknown option '|argument missing|argument is ambiguous|To specify a positional/;

describe('options', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  it('an unknown option names the command and its help, not node text', async () => {
    const { code, stdout, stderr } = await runBin(['channels', 'list', '--bogus']);
    expect([code, stdout]).toEqual([2, '']);
    expect(stderr).toMatch(/^unknown option --bogus; see `messaging-gateway channels list --help`\n/);
    expect(stderr).toMatch(/\nUsage: messaging-gateway channels list/);
    expect(stderr).not.toMatch(NODE_TEXT);
  });

  it('a near miss of an option gets "did you mean", also for a subcommand with its own options', async () => {
    const send = await runBin(['send', '--chanel', 'c1']);
    expect(send.code).toBe(2);
    expect(send.stderr).toMatch(
      /^unknown option --chanel \(did you mean --channel\?\); see `messaging-gateway send --help`/,
    );
    const connect = await runBin(['channels', 'connect', '--transprt', 'whatsapp']);
    expect(connect.code).toBe(2);
    expect(connect.stderr).toMatch(
      /^unknown option --transprt \(did you mean --transport\?\); see `messaging-gateway channels connect --help`/,
    );
  });

  it('--json prints the usage error as its one document', async () => {
    const { code, stdout } = await runBin(['webhooks', 'list', '--bogus', '--json']);
    expect(code).toBe(2);
    expect(JSON.parse(stdout)).toEqual({
      ok: false,
      error: { class: 'UsageError', message: 'unknown option --bogus' },
    });
  });

  it('postgres migrate --schema without a value exits 2 with its usage line, before any connection', async () => {
    const env = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };
    for (const args of [['--schema'], ['--schema='], ['--schema', ''], ['--schema', '--json']]) {
      const { code, stderr } = await runBin(['postgres', 'migrate', ...args], '', env);
      expect(code, args.join(' ')).toBe(2);
      expect(stderr).toMatch(/^--schema needs a value/);
      expect(stderr).toContain('see `messaging-gateway postgres migrate --help`');
      expect(stderr).toMatch(/\nUsage: messaging-gateway postgres migrate \[--url URL\] \[--schema S\]/);
      expect(stderr).not.toMatch(NODE_TEXT);
      expect(stderr).not.toMatch(/ECONNREFUSED|connect/);
    }
  });

  it('a schema name the SDK refuses is a usage error too (exit 2), before any connection', async () => {
    const env = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };
    const { code, stdout, stderr } = await runBin(
      ['postgres', 'migrate', '--schema', 'Bad-Name', '--json'],
      '',
      env,
    );
    expect(code).toBe(2);
    expect(JSON.parse(stdout).error.class).toBe('GatewayValidationError');
    expect(stderr).toMatch(/schema: a lowercase identifier/);
  });

  it('a value given to a flag, a value that is an option, a stray argument: exit 2 in words', async () => {
    const flag = await runBin(['decode', '--json=yes']);
    expect([flag.code, flag.stderr.split('\n')[0]]).toEqual([
      2,
      '--json takes no value; see `messaging-gateway decode --help`',
    ]);
    const taken = await runBin(['trigger', 'message.add', '--to', '--json']);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toMatch(
      /^--to needs a value \(for one that starts with a dash, write --to=<value>\)/,
    );
    const stray = await runBin(['fake-gateway', 'now']);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toMatch(/^unexpected argument "now"; see `messaging-gateway fake-gateway --help`/);
  });
});

describe('commands and subcommands', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  it('a bare flag means a command is needed (exit 2, the list of commands)', async () => {
    for (const flag of ['--json', '--token', '-x']) {
      const { code, stderr } = await runBin([flag]);
      expect(code, flag).toBe(2);
      expect(stderr).toMatch(new RegExp(`^a command is needed before ${flag}\\n`));
      expect(stderr).toContain('Usage: messaging-gateway <command> [options]');
      expect(stderr).not.toContain('unknown command');
    }
    const json = await runBin(['--json']);
    expect(JSON.parse(json.stdout)).toEqual({
      ok: false,
      error: { class: 'UsageError', message: 'a command is needed before --json' },
    });
  });

  it('a mistyped subcommand gets "did you mean"; a missing one lists them', async () => {
    const typo = await runBin(['channels', 'lst']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(
      /^unknown subcommand "lst" of channels; it takes list, get, delete, connect\n/,
    );
    expect(typo.stderr).toMatch(/Did you mean this\?\n {2}messaging-gateway channels list\n/);
    const webhooks = await runBin(['webhooks', 'ensur', 'https://crm.example/hooks']);
    expect(webhooks.stderr).toMatch(/Did you mean this\?\n {2}messaging-gateway webhooks ensure/);
    const missing = await runBin(['v3']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^v3 needs a subcommand: get, set; see `messaging-gateway v3 --help`/);
    const unknown = await runBin(['v3', '__proto__']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^unknown subcommand "__proto__" of v3/);
  });

  it('a mistyped trigger kind gets "did you mean"; an unknown one points at --list', async () => {
    const typo = await runBin(['trigger', 'mesage.add', '--to', 'http://127.0.0.1:9/hooks']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^unknown kind "mesage\.add" \(did you mean message\.add\?\)/);
    const v3 = await runBin(['trigger', 'v3.createContct', '--to', 'http://127.0.0.1:9/hooks']);
    expect(v3.stderr).toMatch(/did you mean v3\.createContact\?/);
    const far = await runBin(['trigger', 'nothing.like.it', '--to', 'http://127.0.0.1:9/hooks']);
    expect(far.code).toBe(2);
    expect(far.stderr).toMatch(
      /^unknown kind "nothing\.like\.it"; `messaging-gateway trigger --list` shows every kind/,
    );
  });
});

describe('-- ends the options', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  it('--help and --json after -- are arguments (a file named --help), not asked for', async () => {
    const help = await runBin(['decode', '--json', '--', '--help']);
    expect(help.code).toBe(2);
    expect(help.stdout).not.toContain('Usage:');
    expect(JSON.parse(help.stdout)).toEqual({
      ok: false,
      error: { class: 'UsageError', message: 'cannot read --help: ENOENT' },
    });
    const json = await runBin(['decode', '--', '--json']);
    expect([json.code, json.stdout]).toEqual([2, '']);
    expect(json.stderr).toMatch(/^cannot read --json: ENOENT/);
  });
});

describe('help', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  it('help of an unknown topic with --json prints its one JSON document; options are not topics', async () => {
    const unknown = await runBin(['help', 'nope', '--json']);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout)).toEqual({
      ok: false,
      error: { class: 'UsageError', message: 'unknown command "nope"' },
    });
    const main = await runBin(['help', '--json']);
    expect(main.code).toBe(0);
    expect(main.stdout).toMatch(/^Usage: messaging-gateway <command>/);
  });
});
