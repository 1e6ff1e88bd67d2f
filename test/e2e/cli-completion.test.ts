// `messaging-gateway completion bash|zsh|fish`, loaded as a user loads it (`source <(…)`, `… |
// source`) into a real shell in a real terminal (tmux on a private socket), then completed with
// the Tab key: commands, subcommands, options, option values and trigger's kinds. The script is
// also checked against the bin: every option a command parses is offered, and its help names it.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { completionModel } from '../../src/cli/completion.js';
import { helpOf } from '../../src/cli/help.js';
import { BIN, BIN_RUNS_TIMEOUT_MS, runBin } from '../support/run-bin.js';
import { findCommand, PARTS, skipWithout } from '../support/system-parts.js';
import { terminal } from '../support/terminal.js';

const term = terminal('completion');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mgsdk-completion-'));
  // `messaging-gateway` on the shells' PATH: the bin from source, as `npx messaging-gateway` runs it
  mkdirSync(join(dir, 'bin'));
  const wrapper = join(dir, 'bin', 'messaging-gateway');
  writeFileSync(
    wrapper,
    `#!/bin/sh\ncd '${resolve('.')}' && exec '${process.execPath}' ${BIN.join(' ')} "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
});
afterAll(async () => {
  await term.close();
  // The shells end on the hang-up, fish still writing its config into HOME as it goes (for
  // seconds on a busy machine): removal is tried again, each wait longer, while files appear.
  await rm(dir, { recursive: true, force: true, maxRetries: 30, retryDelay: 100 });
});

describe('the script offers what the bin takes', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  it('every option each command parses is in its help, and the help names no option the script lacks', () => {
    const model = completionModel();
    for (const { path, options } of model.paths.filter((p) => p.path !== 'help')) {
      const help = helpOf(path.split(' ')) as string;
      for (const option of options) expect(help, `${path} ${option}`).toMatch(new RegExp(`${option}\\b`));
      const named = new Set(help.match(/(?<![\w-])--[a-z][\w-]*/g));
      // the help of `channels` points at `channels connect`'s options; each is offered somewhere
      const offered = new Set(model.paths.flatMap((p) => p.options));
      for (const option of named) expect(offered, `${path}: ${option}`).toContain(option);
    }
  });

  it('every command of the bin, and each subcommand with options of its own, has its options in the script', () => {
    const paths = completionModel().paths.map((p) => p.path);
    for (const command of COMMANDS.keys()) expect(paths, command).toContain(command);
    expect(completionModel().commands).toEqual([...COMMANDS.keys(), 'help']);
  });

  it('exits 2 for a shell it does not know, 0 for each it does', async () => {
    expect((await runBin(['completion', 'tcsh'])).code).toBe(2);
    for (const shell of ['bash', 'zsh', 'fish']) {
      const { code, stdout } = await runBin(['completion', shell]);
      expect([shell, code]).toEqual([shell, 0]);
      expect(stdout).toContain('messaging-gateway');
    }
  });
});

describe.skipIf(!findCommand('bash'))(
  'bash, called as readline calls it',
  { timeout: BIN_RUNS_TIMEOUT_MS },
  () => {
    let script: string;
    beforeAll(async () => {
      script = join(dir, 'completion.bash');
      writeFileSync(script, (await runBin(['completion', 'bash'])).stdout);
    }, BIN_RUNS_TIMEOUT_MS);
    /** The words bash offers for `messaging-gateway <words>`, in a shell set up by `setup`. */
    const completeIn = (setup: string, ...words: string[]) => {
      const shell = `${setup}; source '${script}'; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _messaging_gateway; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const { stdout, stderr } = spawnSync(
        'bash',
        ['--norc', '-c', shell, 'bash', 'messaging-gateway', ...words],
        { encoding: 'utf8' },
      );
      return { offered: stdout.split('\n').filter(Boolean), stderr };
    };

    it('completes each position', () => {
      const complete = (...words: string[]) => completeIn(':', ...words).offered;
      expect(complete('')).toContain('channels');
      expect(complete('--v')).toEqual(['--version']);
      expect(complete('channels', '')).toEqual(['list', 'get', 'delete', 'connect']);
      expect(complete('channels', 'connect', '--tr')).toEqual(['--transport']);
      expect(complete('channels', 'list', '--')).not.toContain('--transport');
      expect(complete('channels', 'connect', '--transport', 'wh')).toEqual(['whatsapp']);
      expect(complete('send', '--wait', '')).toEqual(['sent', 'delivered', 'read']);
      expect(complete('trigger', 'v3.create')).toEqual(['v3.createContact', 'v3.createDeal']);
      expect(complete('replay', 'deliveries', '--only')).toEqual(['--only-to']);
      expect(complete('postgres', '')).toEqual(['migrate', 'sql']);
      expect(complete('help', 'fake')).toEqual(['fake-gateway']);
      expect(complete('completion', '')).toEqual(['bash', 'zsh', 'fish']);
    });

    it('completes the same in a shell with set -u, set -e or an unusual IFS', () => {
      for (const setup of ['set -u', 'set -eu', 'IFS=:', "IFS=','", "IFS=''"]) {
        expect(completeIn(setup, 'cha'), setup).toEqual({ offered: ['channels'], stderr: '' });
        expect(completeIn(setup, 'channels', '').offered, setup).toEqual([
          'list',
          'get',
          'delete',
          'connect',
        ]);
        expect(completeIn(setup, 'send', '--wait', '').offered, setup).toEqual(['sent', 'delivered', 'read']);
        expect(completeIn(setup, 'replay', 'x', '--only').offered, setup).toEqual(['--only-to']);
      }
    });
  },
);

/**
 * One shell in a tmux window: `type` sends keys, `screen` reads the window, `waitFor` polls it
 * until a pattern shows (the shell's start and each completion take their time on a busy machine).
 */
async function shellIn(name: string, command: string) {
  // PATH through env(1): tmux gives a new pane its client's PATH whatever `-e` says
  const env = `env PATH='${join(dir, 'bin')}:${process.env.PATH}' HOME='${dir}'`;
  await term.tmux('new-session', '-d', '-s', name, '-x', '160', '-y', '40', '-c', dir, `${env} ${command}`);
  const type = (...keys: string[]) => term.tmux('send-keys', '-t', name, ...keys);
  const waitFor = (pattern: RegExp) => term.waitFor(name, pattern);
  /** Clears the line the shell is editing (Ctrl-U). */
  const clearLine = () => type('C-u');
  return { type, waitFor, clearLine };
}

/** Types `line` and Tab, and resolves once the screen shows `expected`. */
async function completes(
  shell: Awaited<ReturnType<typeof shellIn>>,
  line: string,
  expected: RegExp,
  tabs = 1,
) {
  await shell.type('-l', line);
  for (let i = 0; i < tabs; i++) await shell.type('Tab');
  const text = await shell.waitFor(expected);
  await shell.clearLine();
  return text;
}

describe.skipIf(skipWithout(PARTS.tmux) || !findCommand('bash'))('bash in a terminal', () => {
  it('source <(messaging-gateway completion bash), then Tab', async () => {
    const bash = await shellIn('bash', "PS1='ready$ ' bash --norc --noprofile");
    await bash.waitFor(/ready\$\s*$/m);
    await bash.type('-l', 'source <(messaging-gateway completion bash) && echo LOADED');
    await bash.type('Enter');
    await bash.waitFor(/^LOADED$/m);
    await completes(bash, 'messaging-gateway chan', /ready\$ messaging-gateway channels\s*$/m);
    await completes(bash, 'messaging-gateway channels co', /ready\$ messaging-gateway channels connect\s*$/m);
    await completes(bash, 'messaging-gateway channels connect --transp', /--transport\s*$/m);
    await completes(bash, 'messaging-gateway send --wait del', /--wait delivered\s*$/m);
    await completes(bash, 'messaging-gateway trigger message.st', /trigger message\.status_update\s*$/m);
    // two candidates: a second Tab lists them
    const listed = await completes(
      bash,
      'messaging-gateway trigger v3.create',
      /v3\.createContact\s+v3\.createDeal/,
      2,
    );
    expect(listed).toMatch(/ready\$ messaging-gateway trigger v3\.create/);
  }, 180_000);
});

describe.skipIf(skipWithout(PARTS.tmux) || skipWithout(PARTS.zsh))('zsh in a terminal', () => {
  it('source <(messaging-gateway completion zsh) after compinit, then Tab', async () => {
    const zsh = await shellIn('zsh', "PS1='ready%% ' zsh -f");
    await zsh.waitFor(/ready%\s*$/m);
    await zsh.type(
      '-l',
      'autoload -Uz compinit && compinit -u -D && source <(messaging-gateway completion zsh) && echo LOADED',
    );
    await zsh.type('Enter');
    await zsh.waitFor(/^LOADED$/m);
    await completes(zsh, 'messaging-gateway chan', /ready% messaging-gateway channels\s*$/m);
    await completes(zsh, 'messaging-gateway channels connect --transp', /--transport\s*$/m);
    await completes(zsh, 'messaging-gateway send --wait del', /--wait delivered\s*$/m);
    await completes(zsh, 'messaging-gateway replay ./x --only', /--only-to\s*$/m);
    await completes(zsh, 'messaging-gateway trigger v3.create', /v3\.createContact\s+v3\.createDeal/);
  }, 180_000);
});

describe.skipIf(skipWithout(PARTS.tmux) || skipWithout(PARTS.fish))('fish in a terminal', () => {
  it('messaging-gateway completion fish | source, then Tab', async () => {
    const fish = await shellIn('fish', 'fish --no-config --private');
    await fish.waitFor(/\S/); // its prompt
    await fish.type('-l', 'messaging-gateway completion fish | source; and echo LOADED');
    await fish.type('Enter');
    await fish.waitFor(/^LOADED$/m);
    await completes(fish, 'messaging-gateway chan', /messaging-gateway channels\s*$/m);
    await completes(fish, 'messaging-gateway channels connect --transp', /--transport\s*$/m);
    await completes(fish, 'messaging-gateway send --wait del', /--wait delivered\s*$/m);
    await completes(fish, 'messaging-gateway trigger v3.create', /v3\.createContact\s+v3\.createDeal/);
  }, 180_000);
});
