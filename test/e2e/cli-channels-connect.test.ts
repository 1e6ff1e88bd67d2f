// `messaging-gateway channels connect` in a real terminal: tmux on a private socket runs the bin
// against a fake gateway started here (it waits for a scan); the test reads the screen, decodes the
// QR printed in half blocks, scans it, answers the password prompt and reads the exit code.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodePng } from '../../src/cli/png-decode.js';
import { qrModules } from '../../src/cli/terminal-qr.js';
import { GatewayClient } from '../../src/client.js';
import { qrText } from '../../src/testing/channel-life.js';
import { createFakeGateway, type FakeGateway } from '../../src/testing/fake-gateway.js';
import { readHalfBlocks, readModules } from '../support/qr-read.js';
import { BIN } from '../support/run-bin.js';
import { PARTS, skipWithout } from '../support/system-parts.js';

const run = promisify(execFile);
const SOCKET = `mgsdk-test-${process.pid}`;
const tmux = (...args: string[]) =>
  run('tmux', ['-u', '-L', SOCKET, ...args], { env: { ...process.env, LANG: 'C.UTF-8' } });
const screen = async () => (await tmux('capture-pane', '-p', '-t', 'connect')).stdout;

/** The screen once `pattern` is on it (polled every 50 ms, at most `ms`). */
async function waitFor(pattern: RegExp, ms = 20_000): Promise<string> {
  const end = Date.now() + ms;
  for (;;) {
    const text = await screen();
    if (pattern.test(text)) return text;
    if (Date.now() > end) throw new Error(`not on the screen after ${ms} ms: ${pattern}\n${text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The last block of half-block lines on the screen: the QR most recently printed. */
function lastQrBlock(text: string): string[] {
  const blocks: string[][] = [[]];
  for (const line of text.split('\n')) {
    if (/^[ ▀▄█]{21,}$/.test(line)) blocks[blocks.length - 1]?.push(line);
    else if (blocks[blocks.length - 1]?.length) blocks.push([]);
  }
  return blocks.filter((b) => b.length).at(-1) ?? [];
}

const skip = skipWithout(PARTS.tmux);

describe.skipIf(skip)('channels connect in a terminal (tmux)', () => {
  let gateway: FakeGateway;
  let dir: string;

  beforeAll(async () => {
    gateway = await createFakeGateway({ autoScan: false, stepMs: 5, qrLifetimeMs: 120_000 });
    dir = mkdtempSync(join(tmpdir(), 'mgsdk-connect-'));
  });
  afterAll(async () => {
    await tmux('kill-server').catch(() => {});
    await gateway.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints a QR that decodes to the fake QR content, asks the password without echo, ends active with exit 0', async () => {
    const qrFile = join(dir, 'qr.png');
    const command = [
      process.execPath,
      ...BIN,
      'channels connect --transport whatsapp --listen 0 --timeout 60',
      `--base-url ${gateway.url} --qr-file ${qrFile}`,
    ].join(' ');
    await tmux(
      'new-session',
      '-d',
      '-s',
      'connect',
      '-x',
      '200',
      '-y',
      '80',
      '-c',
      process.cwd(),
      '-e',
      `GATEWAY_TOKEN=${gateway.token}`,
      `sh -c '${command}; echo EXIT=$?; sleep 600'`,
    );
    const first = await waitFor(/QR saved to/);
    const channelId = /created channel (\S+)/.exec(first)?.[1] as string;
    const art = lastQrBlock(first);
    expect(art.length).toBeGreaterThan(10);
    expect(readHalfBlocks(art)).toBe(qrText(channelId, 0));
    expect(readModules(qrModules(decodePng(readFileSync(qrFile))))).toBe(qrText(channelId, 0));

    await gateway.simulate.scan(channelId, { password: 'x' });
    await waitFor(/two-factor password/);
    await tmux('send-keys', '-t', 'connect', 'nope', 'Enter');
    await waitFor(/refused[^\n]*try again\n.*two-factor password/s);
    await tmux('send-keys', '-t', 'connect', 'x', 'Enter');
    const end = await waitFor(/EXIT=\d+/);
    expect(end).toMatch(/active: \S+ {2}whatsapp {2}active/);
    expect(end).toContain('EXIT=0');
    // nothing typed was echoed, no token printed
    expect(end).not.toMatch(/nope/);
    expect(
      end
        .split('\n')
        .filter((l) => l.includes('two-factor password'))
        .every((l) => l.trimEnd().endsWith(':')),
    ).toBe(true);
    expect(end).not.toContain(gateway.token);
    // the receiver removed its subscriptions on the way out
    const client = new GatewayClient({ baseUrl: gateway.url, token: gateway.token, maxRetries: 0 });
    expect(await client.webhooks.list()).toEqual([]);
  });
});
