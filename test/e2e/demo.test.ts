// `npm run demo` against the fake gateway, as the README promises it: rows sorted, the failed
// message as `→ failed (bad_contact)`, the fake's own scan and the ignored repeats explained, and a
// live progress line only on a terminal (in a pipe or a log, one summary line).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runToEnd } from '../support/run-bin.js';
import { PARTS, skipWithout } from '../support/system-parts.js';
import { terminal } from '../support/terminal.js';

const DEMO = [process.execPath, '--import', 'tsx', 'examples/demo.ts'];
/** No credentials: the demo runs against the fake gateway. */
const FAKE_ONLY = { GATEWAY_BASE_URL: '', GATEWAY_TOKEN: '', GATEWAY_API_KEY: '' };

const dir = mkdtempSync(join(tmpdir(), 'mgsdk-demo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The demo's output through a pipe, and its exit code. */
const demoPiped = () =>
  runToEnd(spawn(DEMO[0] as string, DEMO.slice(1), { stdio: 'pipe', env: { ...process.env, ...FAKE_ONLY } }));

describe('the demo', () => {
  it('in a pipe: sorted rows, failed (bad_contact), the fake scans by itself, repeats explained, no progress line', async () => {
    const { code, stdout, stderr } = await demoPiped();
    expect(code, stderr).toBe(0);
    expect(stdout).not.toContain('\r');
    expect(stdout.match(/^sending: /gm)).toEqual(['sending: ']);
    expect(stdout).toMatch(/^sending: 5\/5 done, 0 failed$/m);
    expect(stdout).toMatch(/the fake gateway scans it itself/);
    const rows = stdout
      .slice(stdout.indexOf('outcomes:\n') + 'outcomes:\n'.length)
      .split('\n')
      .slice(0, 5);
    expect(rows).toEqual([...rows].sort());
    expect(rows[0]).toMatch(/^ {2}0001234567 +accepted → failed \(bad_contact\)$/);
    for (const row of rows.slice(1))
      expect(row).toMatch(/^ {2}790012345\d\d +accepted → sent → delivered → read$/);
    // the fake repeats a share of its deliveries at random: when it did, the line says why they were ignored
    const repeated = /^done: 5 messages tracked, (\d+) repeated deliveries ignored$/m.exec(stdout);
    if (repeated) expect(stdout).toMatch(/dedupe remembers each meta\.idempotency_key/);
    else expect(stdout).toMatch(/^done: 5 messages tracked$/m);
  }, 120_000);

  it.skipIf(skipWithout(PARTS.tmux))(
    'on a terminal (tmux): a live progress line, rewritten in place',
    async () => {
      const { tmux, screen, waitFor, close } = terminal('demo');
      const raw = join(dir, 'terminal.log');
      try {
        await tmux('new-session', '-d', '-s', 'demo', '-x', '200', '-y', '50', '-c', process.cwd(), 'sh');
        // every byte the demo writes to its terminal, \r included
        await tmux('pipe-pane', '-t', 'demo', '-o', `cat >> '${raw}'`);
        const env = Object.entries(FAKE_ONLY).map(([k, v]) => `${k}=${v}`);
        await tmux('send-keys', '-t', 'demo', '-l', `env ${env.join(' ')} ${DEMO.join(' ')}; echo EXIT=$?`);
        await tmux('send-keys', '-t', 'demo', 'Enter');
        await waitFor('demo', /^EXIT=\d+$/m, 90_000);
        expect(await screen('demo')).toMatch(/^EXIT=0$/m);
        const written = readFileSync(raw, 'utf8');
        expect(written).toMatch(/\rsending: \d\/5 done, \d failed/);
        expect(written).toMatch(/0001234567 +accepted → failed \(bad_contact\)/);
      } finally {
        await close();
      }
    },
    120_000,
  );
});
