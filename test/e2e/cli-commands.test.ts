// The bin's command line as a user meets it: any unknown name is a usage error, help is found by
// `help <command>` and `--help` alike, shows examples, and a near miss gets "Did you mean".
import { describe, expect, it } from 'vitest';
import { helpOf } from '../../src/cli/help.js';
import { editDistance, nearest } from '../../src/cli/suggest.js';
import { BIN_RUNS_TIMEOUT_MS, runBin } from '../support/run-bin.js';

const COMMANDS = [
  'send',
  'channels',
  'webhooks',
  'v3',
  'fake-gateway',
  'trigger',
  'replay',
  'decode',
  'completion',
];

describe('unknown commands', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf', 'main']) {
    it(`"${name}" is an unknown command: exit 2, no stack`, async () => {
      const { code, stdout, stderr } = await runBin([name]);
      expect(code).toBe(2);
      expect(stderr).toContain(`unknown command "${name}"`);
      expect(stderr + stdout).not.toMatch(/TypeError|\n\s+at /);
    });
  }

  it('`help toString` is an unknown command too', async () => {
    const { code, stderr } = await runBin(['help', 'toString']);
    expect(code).toBe(2);
    expect(stderr).toContain('unknown command "toString"');
  });

  it('a near miss gets "Did you mean"', async () => {
    const { code, stderr } = await runBin(['chanels', 'list']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/Did you mean this\?\n\s+messaging-gateway channels/);
  });

  it('a control sequence in the typed name is shown, not obeyed', async () => {
    const { stderr } = await runBin(['\u001b[2J\u009bx']);
    expect(stderr).not.toContain('\u001b');
    expect(stderr).not.toContain('\u009b');
    expect(stderr).toContain('\\u001b[2J');
  });
});

describe('--json when the command line is wrong', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  it('prints one JSON document with the error on standard output, exit 2', async () => {
    const { code, stdout } = await runBin(['channels', 'get', '--json']);
    expect(code).toBe(2);
    expect(JSON.parse(stdout)).toEqual({
      ok: false,
      error: { class: 'UsageError', message: 'channels get needs a channel id' },
    });
  });

  it('an unknown command with --json prints its JSON document too, exit 2', async () => {
    const { code, stdout, stderr } = await runBin(['chanels', 'list', '--json']);
    expect(code).toBe(2);
    expect(JSON.parse(stdout)).toEqual({
      ok: false,
      error: { class: 'UsageError', message: 'unknown command "chanels"' },
    });
    expect(stderr).toMatch(/Did you mean this\?/);
  });
});

describe('help', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  it('`help <command>` prints the same help as `<command> --help`, exit 0', async () => {
    for (const topic of [['send'], ['channels', 'connect']]) {
      const viaHelp = await runBin(['help', ...topic]);
      const viaFlag = await runBin([...topic, '--help']);
      expect([viaHelp.code, viaFlag.code]).toEqual([0, 0]);
      expect(viaHelp.stdout).toBe(viaFlag.stdout);
      expect(viaHelp.stdout).toMatch(new RegExp(`^Usage: messaging-gateway ${topic.join(' ')}`));
    }
  });

  it('every command has examples in its help', () => {
    for (const topic of [[], ...COMMANDS.map((c) => [c]), ['channels', 'connect']]) {
      expect(helpOf(topic), topic.join(' ')).toMatch(/\nExamples:\n {2}\$ messaging-gateway /);
    }
    expect(helpOf(['toString'])).toBeUndefined();
    expect(helpOf(['__proto__'])).toBeUndefined();
  });
});

describe('"Did you mean"', () => {
  it('counts a swap of two letters as one edit', () => {
    expect(editDistance('sned', 'send')).toBe(1);
    expect(editDistance('decode', 'decode')).toBe(0);
    expect(editDistance('', 'v3')).toBe(2);
  });

  it('suggests the nearest command for a near miss only', () => {
    expect(nearest('sned', COMMANDS)).toBe('send');
    expect(nearest('fake-gatway', COMMANDS)).toBe('fake-gateway');
    expect(nearest('Webhook', COMMANDS)).toBe('webhooks');
    expect(nearest('install', COMMANDS)).toBeUndefined();
    expect(nearest('x'.repeat(10_000), COMMANDS)).toBeUndefined();
  });
});
