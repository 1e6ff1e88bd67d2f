// The bin imports a command's module only when that command runs: `--version`, `--help`, a help
// topic and a usage error load none (nor the client, zod or ky), so they answer at once. Checked
// by the modules the process loaded, never by a time.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBin } from '../support/run-bin.js';

const dir = mkdtempSync(join(tmpdir(), 'mgsdk-loads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The modules of src/cli/ that the bin needs before it knows which command runs: its entry, the
 * table of commands, the help, the streams, "did you mean" and the signals. Every other module
 * of src/cli/ belongs to a command (or to what commands share: the client's options, receivers).
 */
const STARTUP = new Set(['main.ts', 'commands.ts', 'help.ts', 'io.ts', 'suggest.ts', 'interrupt.ts']);
const COMMAND_MODULES = readdirSync('src/cli')
  .filter((name) => name.endsWith('.ts') && !STARTUP.has(name))
  .map((name) => `cli/${name}`);

/** The modules of this repository (src/) and the dependencies a run of the bin loaded. */
async function loadsOf(args: string[]): Promise<{ code: number | null; src: string[]; deps: string[] }> {
  const file = join(dir, `${args.join('_').replace(/\W/g, '_')}.txt`);
  const env = {
    RECORD_LOADS_FILE: file,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${resolve('test/support/record-loads.mjs')}`,
  };
  const { code } = await runBin(args, '', env);
  const urls = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const src = urls.filter((u) => u.includes('/src/')).map((u) => u.replace(/^.*\/src\//, ''));
  const deps = urls.filter((u) => /\/node_modules\/(zod|ky)\//.test(u));
  return { code, src, deps };
}

const commandModulesIn = (src: string[]) => src.filter((m) => COMMAND_MODULES.includes(m));

// The recording preload needs node's synchronous module hooks (Node 22.15 and later).
describe.skipIf(typeof registerHooks !== 'function')('the bin loads a command only when it runs', () => {
  for (const args of [
    ['--version'],
    ['--help'],
    ['help', 'send'],
    ['send', '--help'],
    ['sned'],
    ['--json'],
  ]) {
    it(`\`${args.join(' ')}\` imports no command module, nor the client, zod or ky`, async () => {
      const { code, src, deps } = await loadsOf(args);
      expect(code).not.toBeNull();
      expect(src).toContain('cli/main.ts');
      expect(commandModulesIn(src)).toEqual([]);
      expect(src).not.toContain('client.ts');
      expect(deps).toEqual([]);
    });
  }

  it('a command loads its own module and no other command', async () => {
    const { code, src } = await loadsOf(['channels', 'list', '--bogus']);
    expect(code).toBe(2);
    expect(commandModulesIn(src).sort()).toEqual(['cli/channels.ts', 'cli/options.ts', 'cli/service.ts']);
  });
});
