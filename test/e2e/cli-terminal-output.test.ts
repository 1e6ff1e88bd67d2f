// What the service or a delivery says reaches a terminal through the bin's text output: control
// sequences in it (ESC, C1, DEL) are shown, never obeyed, and a receiver's secret is masked. A
// stand-in service on 127.0.0.1 answers with hostile values.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWebhook } from '../../src/testing/build-webhook.js';
import { BIN_RUNS_TIMEOUT_MS, type BinRun, runBin } from '../support/run-bin.js';
import { listen } from '../support/servers.js';

const ESC = '\u001b';
const HOSTILE = `${ESC}]0;owned${ESC}\\${ESC}[2J\u009b31m\u007f`;
/** Whether the text holds a control character other than newline and tab. */
const hasControl = (text: string): boolean =>
  [...text].some((c) => {
    const code = c.charCodeAt(0);
    return (code < 0x20 && c !== '\n' && c !== '\t') || (code >= 0x7f && code <= 0x9f);
  });
const SECRET = 'hunter2-secret-value';

const channel = {
  channel_id: `ch${HOSTILE}`,
  transport: 'telegram',
  status: 'active',
  reason: `qr${HOSTILE}`,
  name: `Shop${HOSTILE}`,
};
const hookUrl = `http://127.0.0.1:1/hooks${HOSTILE}?secret=${SECRET}`;

/** The stand-in service: every answer carries control sequences. */
function service(req: { method?: string; url?: string }, res: import('node:http').ServerResponse) {
  const send = (body: unknown) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const path = req.url?.split('?')[0];
  if (path === '/v2/channels') return send({ data: [channel] });
  if (path === '/v2/channels/echo')
    return res
      .writeHead(400, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: 'bad_url', description: `cannot reach ${hookUrl}` }));
  if (path?.startsWith('/v2/channels/')) return send({ data: [channel] });
  if (path === '/v2/webhooks')
    return send({ data: [{ id: `s${HOSTILE}`, url: hookUrl, event: 'message.add' }] });
  if (path === '/v3/webhooks' && req.method === 'GET')
    return send({ webhooksUri: hookUrl, subscriptions: { messagesAndStatuses: true } });
  if (path === '/v3/webhooks') return res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  if (path === '/receiver') return res.writeHead(200, { 'content-type': 'text/plain' }).end(`fine${HOSTILE}`);
  return res.writeHead(404).end();
}

let base: string;
let close: () => Promise<void>;
let dir: string;
beforeAll(async () => {
  ({ url: base, close } = await listen(service));
  dir = mkdtempSync(join(tmpdir(), 'mg-terminal-'));
});
afterAll(async () => {
  await close();
  rmSync(dir, { recursive: true, force: true });
});

const bin = (args: string[], input?: string): Promise<BinRun> =>
  runBin(args, input, { GATEWAY_BASE_URL: base, GATEWAY_TOKEN: 'token-1', GATEWAY_API_KEY: 'key-1' });

/** Text output holds no control character but newlines, and shows the hostile sequence escaped. */
function expectShownNotObeyed(run: BinRun): void {
  const text = run.stdout + run.stderr;
  expect(hasControl(text)).toBe(false);
  expect(text).toContain('\\u001b');
}

describe('text output never passes a control sequence through', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  it('channels list and channels get', async () => {
    for (const args of [
      ['channels', 'list'],
      ['channels', 'get', 'c1'],
    ]) {
      const run = await bin(args);
      expect(run.code, run.stderr).toBe(0);
      expectShownNotObeyed(run);
    }
  });

  it('webhooks list', async () => {
    const run = await bin(['webhooks', 'list']);
    expect(run.code).toBe(0);
    expectShownNotObeyed(run);
  });

  it('v3 get and v3 set, with the secret masked', async () => {
    for (const args of [
      ['v3', 'get'],
      ['v3', 'set', '--uri', `http://127.0.0.1:1/v3?secret=${SECRET}`],
    ]) {
      const run = await bin(args);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).not.toContain(SECRET);
      expect(run.stdout).toMatch(/webhooksUri: http:\/\/127\.0\.0\.1:1\/\S*\?secret=…/);
      expect(hasControl(run.stdout)).toBe(false);
    }
  });

  it('decode: an unknown v3 kind and C1 characters in values', async () => {
    const body = JSON.stringify({ [`kind${HOSTILE}`]: [{ a: `x${HOSTILE}` }] });
    const run = await bin(['decode'], body);
    expectShownNotObeyed(run);
    const v2 = buildWebhook('message.add', { data: [{ text: `hi${HOSTILE}` }] } as never);
    expectShownNotObeyed(await bin(['decode'], JSON.stringify(v2)));
  });

  it("trigger and replay: the receiver's answer", async () => {
    const to = `${base}/receiver`;
    const triggered = await bin(['trigger', 'message.add', '--to', to]);
    expect(triggered.code).toBe(0);
    expectShownNotObeyed(triggered);
    const file = join(dir, `0001-message.add.json`);
    writeFileSync(file, JSON.stringify(buildWebhook('message.add', {})));
    const replayed = await bin(['replay', file, '--to', to]);
    expect(replayed.code).toBe(0);
    expectShownNotObeyed(replayed);
  });
});

describe('a service error that echoes an address, and --json', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  it("masks the receiver's secret in a service error's text", async () => {
    const run = await bin(['channels', 'get', 'echo']);
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain(SECRET);
    expect(run.stderr).toContain('?secret=…');
    expectShownNotObeyed(run);
  });

  it('prints one JSON document with secrets masked and no raw control character (ESC, C1, DEL)', async () => {
    const runs = [
      await bin(['channels', 'get', 'echo', '--json']),
      await bin(['webhooks', 'list', '--json']),
      await bin(['v3', 'get', '--json']),
      await bin(['channels', 'list', '--json']),
      await bin(['trigger', 'message.add', '--to', `${base}/receiver?secret=${SECRET}`, '--json']),
    ];
    for (const run of runs) {
      expect(run.stdout).not.toContain(SECRET);
      expect(run.stdout).not.toContain(ESC);
      expect(hasControl(run.stdout.trimEnd()), run.stdout).toBe(false);
      JSON.parse(run.stdout); // one document
      // the hostile values are there, escaped: ESC by JSON itself, C1 and DEL by the bin
      expect(run.stdout).toContain('\\u001b');
      expect(run.stdout).toContain('\\u009b');
    }
    const [echoed, listed] = runs.map((run) => JSON.parse(run.stdout));
    expect(echoed.error.message).toContain('?secret=…');
    expect(listed[0].url).toMatch(/\?secret=…$/);
  });

  it('decode --json escapes C1 and DEL too, and reads back as the same value', async () => {
    const text = `hi${HOSTILE}`;
    const body = buildWebhook('message.add', { data: [{ text }] } as never);
    const run = await bin(['decode', '--json'], JSON.stringify(body));
    expect(hasControl(run.stdout.trimEnd()), run.stdout).toBe(false);
    expect(run.stdout).toContain('\\u009b');
    expect(JSON.parse(run.stdout).items[0].value.text).toBe(text);
  });
});
