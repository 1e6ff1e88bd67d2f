// `messaging-gateway channels connect` in a real terminal: tmux on a private socket runs the bin
// against a fake gateway started here (it waits for a scan); the test reads the screen, decodes the
// QR printed in half blocks, scans it, answers the password prompt and reads the exit code.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decodePng } from '../../src/cli/png-decode.js';
import { qrModules } from '../../src/cli/terminal-qr.js';
import { GatewayClient } from '../../src/client.js';
import { buildWebhook } from '../../src/testing/build-webhook.js';
import { qrText } from '../../src/testing/channel-life.js';
import { createFakeGateway, type FakeGateway } from '../../src/testing/fake-gateway.js';
import { readHalfBlocks, readModules } from '../support/qr-read.js';
import { BIN, BIN_RUNS_TIMEOUT_MS, runBin, startBin } from '../support/run-bin.js';
import { PARTS, skipWithout } from '../support/system-parts.js';
import { terminal } from '../support/terminal.js';

const term = terminal('connect');
const { tmux } = term;
/** The `connect` window once `pattern` is on it. */
const waitFor = (pattern: RegExp, ms?: number) => term.waitFor('connect', pattern, ms);

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

describe.skipIf(skip)('channels connect in a terminal (tmux)', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  let gateway: FakeGateway;
  let dir: string;

  beforeAll(async () => {
    gateway = await createFakeGateway({ autoScan: false, stepMs: 5, qrLifetimeMs: 120_000 });
    dir = mkdtempSync(join(tmpdir(), 'mgsdk-connect-'));
  });
  afterAll(async () => {
    await term.close();
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

  it('closing the terminal (SIGHUP) removes the subscriptions it made', async () => {
    const client = new GatewayClient({ baseUrl: gateway.url, token: gateway.token, maxRetries: 0 });
    const command = [process.execPath, ...BIN, 'channels connect --transport whatsapp --listen 0'].join(' ');
    const qrFile = join(dir, 'hangup-qr.png');
    await tmux(
      'new-session',
      '-d',
      '-s',
      'hangup',
      '-c',
      process.cwd(),
      '-e',
      `GATEWAY_TOKEN=${gateway.token}`,
      `${command} --base-url ${gateway.url} --qr-file ${qrFile}`,
    );
    await term.waitFor('hangup', /QR saved to/);
    expect(await client.webhooks.list()).toHaveLength(2);
    await tmux('kill-session', '-t', 'hangup');
    await expect.poll(() => client.webhooks.list(), { timeout: 60_000, interval: 50 }).toEqual([]);
  });
});

/** The bins `started` started: one still running when its test ends is killed (a test that failed mid-way). */
const running = new Set<ReturnType<typeof startBin>>();
afterEach(() => {
  for (const child of running)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  running.clear();
});

/** Starts the bin and resolves each wait once its standard output matches. */
function started(args: string[], env: NodeJS.ProcessEnv) {
  const child = startBin(args, env);
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
  const waitOut = async (pattern: RegExp) => {
    while (!pattern.test(stdout)) {
      if (child.exitCode !== null) throw new Error(`the bin ended first: ${stdout}${stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return pattern.exec(stdout) as RegExpExecArray;
  };
  return { child, exit, waitOut, output: () => ({ stdout, stderr }) };
}

describe('channels connect without a terminal', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  let gateway: FakeGateway;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const connect = (...more: string[]) => [
    'channels',
    'connect',
    '--listen',
    '0',
    '--base-url',
    gateway.url,
    '--qr-file',
    join(dir, 'qr.png'),
    ...more,
  ];
  const subscriptions = () =>
    new GatewayClient({ baseUrl: gateway.url, token: gateway.token, maxRetries: 0 }).webhooks.list();

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mgsdk-connect-'));
  });
  afterEach(async () => {
    await gateway.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const start = async (options = {}) => {
    gateway = await createFakeGateway({ stepMs: 5, ...options });
    env = { GATEWAY_TOKEN: gateway.token };
  };

  it('--json prints one JSON document per step (no QR art) and ends active', async () => {
    await start();
    const { code, stdout } = await runBin([...connect('--transport', 'whatsapp', '--json')], '', env);
    expect(code).toBe(0);
    const steps = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(steps.map((s) => s.step)).toEqual(['created', 'qr', 'active']);
    expect(steps[1].file).toBe(join(dir, 'qr.png'));
    expect(steps[2].channel.status).toBe('active');
    expect(stdout).not.toMatch(/[▀▄█]/);
    expect(await subscriptions()).toEqual([]);
  });

  it('a QR left unscanned ends 1 with ChannelConnectError and its reason (qridle)', async () => {
    await start({ autoScan: false, qrLifetimeMs: 300 });
    const { code, stderr } = await runBin(connect('--transport', 'whatsapp'), '', env);
    expect(code).toBe(1);
    expect(stderr).toMatch(/ChannelConnectError: Channel \S+ failed to connect: qridle/);
    expect(await subscriptions()).toEqual([]);
  });

  it('--json on failure prints { ok: false, error } with the class, reason and channel', async () => {
    await start({ autoScan: false, qrLifetimeMs: 300 });
    const { code, stdout } = await runBin(connect('--transport', 'whatsapp', '--json'), '', env);
    expect(code).toBe(1);
    const last = JSON.parse(stdout.trim().split('\n').at(-1) as string);
    expect(last).toMatchObject({ ok: false, error: { class: 'ChannelConnectError', reason: 'qridle' } });
  });

  it('reads the password from a line of standard input when it is not a terminal', async () => {
    await start({ autoScan: false, qrLifetimeMs: 60_000 });
    const bin = started(connect('--transport', 'whatsapp'), env);
    const [, channelId] = await bin.waitOut(/created channel (\S+)/);
    await bin.waitOut(/QR saved to/);
    await gateway.simulate.scan(channelId as string, { password: 's3cret' });
    bin.child.stdin.end('s3cret\n');
    expect(await bin.exit).toBe(0);
    expect(bin.output().stdout).toMatch(/password sent\nactive: /);
    expect(bin.output().stdout + bin.output().stderr).not.toContain('s3cret');
  });

  it('a telegram bot goes from created to active; its token is never printed', async () => {
    await start();
    const token = '123456:bot-token-never-printed';
    const { code, stdout, stderr } = await runBin(
      connect('--transport', 'telegram', '--credentials', JSON.stringify({ telegram_token: token })),
      '',
      env,
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/created channel \S+ \(telegram\)\nactive: /);
    expect(stdout + stderr).not.toContain(token);
  });

  it('Ctrl-C (SIGINT) stops the flow and removes the subscriptions it made', async () => {
    await start({ autoScan: false, qrLifetimeMs: 60_000 });
    const bin = started(connect('--transport', 'whatsapp'), env);
    await bin.waitOut(/QR saved to/);
    expect(await subscriptions()).toHaveLength(2);
    const sent = Date.now();
    bin.child.kill('SIGINT');
    expect(await bin.exit).toBe(1);
    // no timer of the flow (its 5 s poll of channels.get) keeps the process alive after it
    expect(Date.now() - sent).toBeLessThan(2500);
    expect(bin.output().stderr).toMatch(/GatewayAbortError/);
    expect(await subscriptions()).toEqual([]);
  });

  for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
    it(`${signal} stops the flow and removes the subscriptions it made`, async () => {
      await start({ autoScan: false, qrLifetimeMs: 60_000 });
      const bin = started(connect('--transport', 'whatsapp'), env);
      await bin.waitOut(/QR saved to/);
      expect(await subscriptions()).toHaveLength(2);
      bin.child.kill(signal);
      expect(await bin.exit).toBe(1);
      expect(bin.output().stderr).toMatch(/GatewayAbortError/);
      expect(await subscriptions()).toEqual([]);
    });
  }

  it('a closed output pipe (| head -c1) stops the flow and removes the subscriptions it made', async () => {
    await start({ autoScan: false, qrLifetimeMs: 60_000 });
    const command = [process.execPath, ...BIN, ...connect('--transport', 'whatsapp')]
      .map((a) => `'${a.replaceAll("'", "'\\''")}'`)
      .join(' ');
    const shell = spawn('sh', ['-c', `${command} | head -c1`], { env: { ...process.env, ...env } });
    let out = '';
    shell.stdout.on('data', (c) => (out += c));
    // The bin learns of the closed pipe at its next write (EPIPE). It may have written all it had
    // before head exited, so once head has its byte, a new QR is delivered: the bin prints it,
    // that write fails, and the flow (still waiting for a scan) must stop and clean up.
    while (out === '') await new Promise((r) => setTimeout(r, 20));
    const client = new GatewayClient({ baseUrl: gateway.url, token: gateway.token, maxRetries: 0 });
    let channels = await client.channels.list();
    while (channels.length === 0) channels = await client.channels.list();
    const qr = buildWebhook('channel.qr_update', {
      data: [{ channel_id: channels[0]?.channel_id as string }],
    });
    await gateway.simulate.deliver(qr).catch(() => {});
    // a bin that went on writing into the closed pipe would never end: this is only a safety net
    const [code] = await Promise.race([
      once(shell, 'close'),
      new Promise<[string]>((r) => setTimeout(() => r(['hung']), 90_000)),
    ]);
    if (code === 'hung') shell.kill('SIGKILL');
    expect([code, out]).toEqual([0, 'r']); // head's own exit; the bin ended on its own
    expect(await subscriptions()).toEqual([]);
  });

  it('SIGINT at the password prompt (standard input open) ends the run and removes its subscriptions', async () => {
    await start({ autoScan: false, qrLifetimeMs: 60_000 });
    const bin = started(connect('--transport', 'whatsapp'), env);
    const [, channelId] = await bin.waitOut(/created channel (\S+)/);
    await bin.waitOut(/QR saved to/);
    await gateway.simulate.scan(channelId as string, { password: 's3cret' });
    while (!bin.output().stderr.includes('two-factor password')) await new Promise((r) => setTimeout(r, 20));
    bin.child.kill('SIGINT');
    // a prompt that went on reading the open standard input would never end (the test's time-out)
    expect(await bin.exit).toBe(1);
    expect(bin.output().stderr).toMatch(/GatewayAbortError/);
    expect(await subscriptions()).toEqual([]);
  });

  it('--timeout passing at the password prompt ends 1 with GatewayTimeoutError, not a prompt that waits on', async () => {
    await start({ autoScan: false, qrLifetimeMs: 60_000 });
    const bin = started(connect('--transport', 'whatsapp', '--timeout', '4'), env);
    const [, channelId] = await bin.waitOut(/created channel (\S+)/);
    await bin.waitOut(/QR saved to/);
    await gateway.simulate.scan(channelId as string, { password: 's3cret' });
    // a prompt that waited on would never end: the test's own time-out is the net
    expect(await bin.exit).toBe(1);
    expect(bin.output().stderr).toMatch(
      /^GatewayTimeoutError: channels\.connect: channel \S+ not active within 4000 ms: waiting for the two-factor password \(submit2fa\) \(last step: password\)$/m,
    );
    expect(bin.output().stderr).not.toMatch(/refused/);
    expect(await subscriptions()).toEqual([]);
  });

  it('--timeout passing at the QR says it waited for the scan, not "no answer" from a call', async () => {
    await start({ autoScan: false, qrLifetimeMs: 60_000 });
    const { code, stderr } = await runBin(connect('--transport', 'whatsapp', '--timeout', '3'), '', env);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /^GatewayTimeoutError: channels\.connect: channel \S+ not active within 3000 ms: waiting for the QR code to be scanned \(last step: qr\)$/m,
    );
    expect(stderr).not.toMatch(/no answer/);
    expect(await subscriptions()).toEqual([]);
  });

  it('a --pairing-phone the service cannot take is a usage error before any channel is created', async () => {
    await start();
    const { code, stdout, stderr } = await runBin(
      connect('--transport', 'whatsapp', '--pairing-phone', '+7 900 123-45-67'),
      '',
      env,
    );
    expect(code).toBe(2);
    expect(stdout).not.toMatch(/created channel/);
    expect(stderr).toMatch(/--pairing-phone/);
    const client = new GatewayClient({ baseUrl: gateway.url, token: gateway.token, maxRetries: 0 });
    expect(await client.channels.list()).toEqual([]);
    expect(await subscriptions()).toEqual([]);
    // a pairing code is whatsapp's alone (spec: POST /v2/channels/{id}/pairing-code)
    const tgapi = await runBin(connect('--transport', 'tgapi', '--pairing-phone', '79001234567'), '', env);
    expect([tgapi.code, tgapi.stdout]).toEqual([2, '']);
    expect(tgapi.stderr).toMatch(/--pairing-phone is for whatsapp/);
  });

  it('exits 2 on a usage error, and prints its own help', async () => {
    await start();
    expect((await runBin(['channels', 'connect', '--listen', '0'], '', env)).code).toBe(2);
    expect(
      (await runBin(['channels', 'connect', '--transport', 'whatsapp', '--listen', 'x'], '', env)).code,
    ).toBe(2);
    const forever = await runBin(connect('--transport', 'whatsapp', '--timeout', 'Infinity'), '', env);
    expect([forever.code, forever.stdout]).toEqual([2, '']);
    expect((await runBin(connect('--transport', 'whatsapp', '--timeout', '1e7'), '', env)).code).toBe(2);
    const help = await runBin(['channels', 'connect', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: messaging-gateway channels connect --transport/);
  });
});
