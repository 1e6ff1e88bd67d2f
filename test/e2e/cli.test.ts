// The bin `messaging-gateway`, spawned as a process as a user runs it.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import { createNodeMiddleware } from '../../src/webhooks/adapters/node.js';
import type { Webhook } from '../../src/webhooks/decode/parse.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { BIN_RUNS_TIMEOUT_MS, runBin } from '../support/run-bin.js';
import { listen } from '../support/servers.js';

const CLI = ['--import', 'tsx', 'src/cli/main.ts'];
const fixture = (path: string) => `test/fixtures/${path}`;

const run = (args: string[], input?: string) => runBin(args, input);

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

describe('messaging-gateway --help', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  for (const command of ['', 'fake-gateway', 'trigger', 'decode']) {
    it(`prints the help of ${command || 'the bin'} and exits 0`, async () => {
      const { code, stdout } = await run([...(command ? [command] : []), '--help']);
      expect(code).toBe(0);
      expect(stdout).toMatch(new RegExp(`^Usage: messaging-gateway ${command || '<command>'}`));
    });
  }

  it('exits 2 on an unknown command or option, pointing at --help', async () => {
    expect((await run(['nope'])).code).toBe(2);
    const { code, stderr } = await run(['decode', '--nope']);
    expect(code).toBe(2);
    expect(stderr).toContain('messaging-gateway decode --help');
  });
});

describe('messaging-gateway decode', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  it('prints the kind and items of a valid delivery (golden)', async () => {
    const { code, stdout } = await run(['decode', fixture('v2/message.add--inbound-whatsapp-text.json')]);
    expect(code).toBe(0);
    await expect(stdout).toMatchFileSnapshot('../golden/decode-valid.txt');
  });

  it('prints every issue by path and exits 1 for an invalid delivery on standard input (golden)', async () => {
    const body = readFileSync(fixture('invalid/v2--data-not-an-array.json'), 'utf8');
    const { code, stdout } = await run(['decode'], body);
    expect(code).toBe(1);
    await expect(stdout).toMatchFileSnapshot('../golden/decode-invalid.txt');
  });

  it('prints JSON a script can read with --json', async () => {
    const { code, stdout } = await run([
      'decode',
      '--json',
      fixture('v3/statuses--delivered-and-error.json'),
    ]);
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({ ok: true, api: 'v3', kind: 'messagesAndStatuses' });
    expect(out.items.map((i: { path: string }) => i.path)).toEqual(['statuses[0]', 'statuses[1]']);
    const bad = await run(['decode', '--json', fixture('invalid/v3--messages-not-an-array.json')]);
    expect([bad.code, JSON.parse(bad.stdout).ok]).toEqual([1, false]);
  });
});

describe('messaging-gateway trigger', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  async function receiver() {
    const hooks = new WebhookHandler({ secret: 's3cret', v3AuthToken: 'crm-key', awaitListeners: true });
    const received: Webhook[] = [];
    hooks.on('webhook', (w) => void received.push(w));
    hooks.on('error', () => {});
    hooks.respond('v3.createContact', ({ createContact }) => ({ id: 'c-1', name: createContact.name ?? '' }));
    const server = await listen(createServer(createNodeMiddleware(hooks)));
    closers.push(server.close);
    return { received, url: `${server.url}/hooks` };
  }

  it('POSTs a built delivery with --set fields to a local handler, prints the answer, exits 0', async () => {
    const { received, url } = await receiver();
    const { code, stdout } = await run([
      'trigger',
      'message.add',
      '--to',
      `${url}?secret=s3cret`,
      '--set',
      'data.0.text=Hi there',
      '--set',
      'data[0].timestamp:=1735689600123',
    ]);
    expect(code).toBe(0);
    expect(stdout).toBe(`POST ${url}?secret=… message.add → 200 OK\n{"ok":true}\n`); // the secret is not printed
    expect(received).toMatchObject([
      { api: 'v2', event: 'message.add', data: [{ text: 'Hi there', timestamp: 1735689600123 }] },
    ]);
  });

  it('sends a v3 kind with the crmKey and prints the CRM reply as JSON', async () => {
    const { url } = await receiver();
    const { code, stdout } = await run([
      'trigger',
      'v3.createContact',
      '--to',
      `${url}?secret=s3cret`,
      '--crm-key',
      'crm-key',
      '--set',
      'createContact.name=Zoe',
      '--json',
    ]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      status: 200,
      ok: true,
      body: { id: 'c-1', name: 'Zoe' },
      sent: { createContact: { name: 'Zoe' } },
    });
  });

  it('exits 1 when the receiver refuses the delivery (a wrong secret: 401)', async () => {
    const { received, url } = await receiver();
    const { code, stdout } = await run(['trigger', 'message.status_update', '--to', `${url}?secret=wrong`]);
    expect(code).toBe(1);
    expect(stdout).toContain('→ 401');
    expect(received).toEqual([]);
  });

  it('exits 2 on an unknown kind and lists the kinds with --list', async () => {
    expect((await run(['trigger', 'message.nope', '--to', 'http://127.0.0.1:9/'])).code).toBe(2);
    const { stdout } = await run(['trigger', '--list']);
    expect(stdout.split('\n')).toEqual(expect.arrayContaining(['message.add', 'v3.statuses', 'v3.test']));
  });
});

describe('messaging-gateway fake-gateway', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  it('prints its address, token and API key, answers a client, logs the request, and stops on SIGINT', async () => {
    const child = spawn(process.execPath, [...CLI, 'fake-gateway', '--json', '--token', 'cli-token'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const lines = createInterface({ input: child.stdout });
    const next = () => new Promise<string>((resolve) => lines.once('line', resolve));
    try {
      const started = JSON.parse(await next());
      expect(started).toMatchObject({ token: 'cli-token', apiKey: 'fake-gateway-api-key' });
      expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const client = new GatewayClient({ baseUrl: started.url, token: started.token });
      const logged = next();
      const [channel] = await client.channels.create({
        transport: 'telegram',
        credentials: { telegram_token: 't' },
      });
      expect(JSON.parse(await logged)).toEqual({ method: 'POST', path: '/v2/channels', status: 200 });
      await expect(client.channels.list()).resolves.toMatchObject([{ channel_id: channel?.channel_id }]);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  });

  it('prints its inbox page, and leaves each QR for the inbox to scan (autoScan off)', async () => {
    const child = spawn(process.execPath, [...CLI, 'fake-gateway', '--json', '--quiet'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const lines = createInterface({ input: child.stdout });
    try {
      const started = JSON.parse(await new Promise<string>((resolve) => lines.once('line', resolve)));
      expect(started.inbox).toBe(`${started.url}/`);
      const page = await (await fetch(started.inbox)).text();
      expect(page).toContain('<title>Inbox');
      const pageToken = /name="inbox-token" content="([^"]+)"/.exec(page)?.[1] as string;
      const client = new GatewayClient({ baseUrl: started.url, token: started.token });
      const [created] = await client.channels.create({ transport: 'whatsapp', credentials: {} });
      const id = created?.channel_id as string;
      // with autoScan the fake scans a step (10 ms) after the QR; this one still waits well after
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(await client.channels.get(id)).toMatchObject({ status: 'init', reason: 'qr' });
      const scan = await fetch(`${started.url}/_inbox/scan`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-inbox-token': pageToken },
        body: JSON.stringify({ channel_id: id }),
      });
      expect(scan.status).toBe(200);
      expect(await client.channels.get(id)).toMatchObject({ status: 'active' });
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  });
});
