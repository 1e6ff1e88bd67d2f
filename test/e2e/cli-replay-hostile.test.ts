// `replay` and `trigger` against hostile recordings and absent receivers: bounded reads, no wait on
// a FIFO or a lying Content-Length, no stack overflow, one JSON document on failure, fresh keys.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildWebhook } from '../../src/testing/build-webhook.js';
import { createNodeMiddleware } from '../../src/webhooks/adapters/node.js';
import type { Webhook } from '../../src/webhooks/decode/parse.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { BIN_RUNS_TIMEOUT_MS, runBin } from '../support/run-bin.js';
import { freePort, listen } from '../support/servers.js';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mg-replay-hostile-'));
  closers.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A receiver with a secret; it keeps every webhook it dispatches. */
async function receiver() {
  const hooks = new WebhookHandler({ secret: 'q-secret', dispatch: 'await' });
  const received: Webhook[] = [];
  hooks.on('webhook', (w) => void received.push(w));
  hooks.on('error', () => {});
  const server = await listen(createServer(createNodeMiddleware(hooks)));
  closers.push(server.close);
  return { received, url: `${server.url}/hooks?secret=q-secret` };
}

const delivery = (seed: string) => JSON.stringify(buildWebhook('message.add', {}, { seed }));

describe('replay reads only bounded regular files', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  it('does not wait on a hostile Content-Length in a sidecar: the delivery is sent and answered', async () => {
    const dir = folder();
    writeFileSync(join(dir, '0001-message.add.json'), delivery('a'));
    const headers = { 'content-type': 'application/json', 'content-length': '999999', connection: 'x' };
    writeFileSync(join(dir, '0001-message.add.meta.json'), JSON.stringify({ headers }));
    const target = await receiver();
    const run = await runBin(['replay', dir, '--to', target.url]);
    expect(run.stderr).toBe('');
    expect([run.code, target.received.length]).toEqual([0, 1]);
  });

  it('refuses a FIFO body at once, ignores a FIFO sidecar, and goes on with the other files', async () => {
    const dir = folder();
    execFileSync('mkfifo', [join(dir, 'fifo.json')]);
    writeFileSync(join(dir, 'good.json'), delivery('b'));
    execFileSync('mkfifo', [join(dir, 'good.meta.json')]);
    const target = await receiver();
    const named = await runBin([
      'replay',
      join(dir, 'fifo.json'),
      join(dir, 'good.json'),
      '--to',
      target.url,
    ]);
    expect(named.code).toBe(1);
    expect(named.stderr).toMatch(/fifo\.json is not a regular file; not read \(NotAFileError\); not sent/);
    expect(target.received).toHaveLength(1);
  });

  it('never follows a link in a folder, and names a linked file it refuses', async () => {
    const dir = folder();
    const outside = folder();
    writeFileSync(join(outside, 'secret.json'), delivery('c'));
    execFileSync('ln', ['-s', join(outside, 'secret.json'), join(dir, '0001-message.add.json')]);
    const target = await receiver();
    const run = await runBin(['replay', dir, '--to', target.url, '--json']);
    expect([run.code, run.stdout, target.received]).toEqual([0, '', []]);
  });

  it('a body nested too deeply to rewrite with --set is reported and not sent; no stack overflow', async () => {
    const dir = folder();
    const n = 200_000;
    const deep = delivery('d').replace(/\}\]/, `,"x":${'['.repeat(n)}${']'.repeat(n)}}]`);
    writeFileSync(join(dir, 'deep.json'), deep);
    const target = await receiver();
    const run = await runBin([
      'replay',
      join(dir, 'deep.json'),
      '--to',
      target.url,
      '--set',
      'data.0.text=Hi',
    ]);
    expect(run.stderr).not.toMatch(/at .*\.ts:\d+/); // no stack trace
    expect(run.stderr).toContain('nested too deeply to rewrite');
    expect([run.code, target.received.length]).toEqual([1, 0]);
  });
});

describe('replay --only-to against hostile sidecars', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  it('a receiver that is no http(s) address, or megabytes long, is no receiver: never printed', async () => {
    const dir = folder();
    const sidecars = {
      '0001': { receiver: 'javascript:alert(document.cookie)//', query: '?secret=s1' },
      '0002': { receiver: `http://127.0.0.1:9/${'a'.repeat(10_000)}`, query: '?secret=s2' },
      '0003': { receiver: `http://127.0.0.1:9/${'a'.repeat(10 * 1024 * 1024)}` },
      '0004': { receiver: 'http://127.0.0.1:9/hooks\u001b[2J\u009b31m', query: '?secret=s4' },
    };
    for (const [n, sidecar] of Object.entries(sidecars)) {
      writeFileSync(join(dir, `${n}-message.add.json`), delivery(n));
      writeFileSync(join(dir, `${n}-message.add.meta.json`), JSON.stringify(sidecar));
    }
    const target = await receiver();
    const text = await runBin(['replay', dir, '--only-to', target.url]);
    expect([text.code, text.stderr, target.received]).toEqual([0, '', []]);
    const lines = text.stdout.trim().split('\n');
    expect(lines.map((l) => l.replace(/^.*\/(\d{4})-message\.add\.json: /, '$1 '))).toEqual([
      '0001 no receiver recorded; skipped (--only-to)',
      '0002 no receiver recorded; skipped (--only-to)',
      '0003 no receiver recorded; skipped (--only-to)',
      '0004 recorded for another receiver (http://127.0.0.1:9/hooks%1B[2J%C2%9B31m?secret=…); skipped (--only-to)',
    ]);
    expect(text.stdout).not.toMatch(/javascript|s1|s2|s4/);
    for (const control of ['\u001b', '\u009b']) expect(text.stdout).not.toContain(control);

    const json = await runBin(['replay', dir, '--only-to', target.url, '--json']);
    const docs = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(docs.map(({ skipped, recordedFor }) => [skipped, recordedFor])).toEqual([
      ['no receiver recorded', undefined],
      ['no receiver recorded', undefined],
      ['no receiver recorded', undefined],
      ['recorded for another receiver', 'http://127.0.0.1:9/hooks%1B[2J%C2%9B31m?secret=…'],
    ]);
  });
});

describe('replay --new-keys', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  it('a receiver that already took the deliveries answers duplicate; with --new-keys it takes them again', async () => {
    const dir = folder();
    writeFileSync(join(dir, '0001-message.add.json'), delivery('e'));
    writeFileSync(join(dir, '0002-message.add.json'), delivery('f'));
    const target = await receiver();
    expect((await runBin(['replay', dir, '--to', target.url])).code).toBe(0);
    expect((await runBin(['replay', dir, '--to', target.url])).code).toBe(0);
    expect(target.received).toHaveLength(2); // the second run was answered as duplicates
    const fresh = await runBin(['replay', dir, '--to', target.url, '--new-keys']);
    expect(fresh.code).toBe(0);
    expect(target.received).toHaveLength(4);
    const keys = target.received.map((w) => (w.api === 'v2' ? w.meta.idempotency_key : ''));
    expect(new Set(keys).size).toBe(4);
  });
});

describe('a receiver that cannot be reached', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  for (const command of ['trigger', 'replay'] as const) {
    it(`${command} --json prints one JSON document with the error; the text names the real cause`, async () => {
      const port = await freePort();
      const to = `http://127.0.0.1:${port}/hooks?secret=q-secret`;
      const what =
        command === 'trigger'
          ? ['message.add']
          : ['test/fixtures/v2/message.add--inbound-whatsapp-text.json'];
      const json = await runBin([command, ...what, '--to', to, '--json']);
      expect(json.code).toBe(1);
      const document = JSON.parse(json.stdout);
      expect(document).toMatchObject({
        ok: false,
        error: {
          class: 'GatewayConnectionError',
          message: expect.stringContaining(`connection refused to 127.0.0.1:${port}`),
        },
      });
      const text = await runBin([command, ...what, '--to', to]);
      expect(text.code).toBe(1);
      expect(text.stderr).toContain(`failed: connection refused to 127.0.0.1:${port}`);
      expect(text.stderr).not.toMatch(/TypeError|q-secret/);
    });
  }
});

describe('send with both --text and --file', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  it('says they are exclusive, exit 2', async () => {
    const args = 'send --channel c --to whatsapp:79001234567 --text Hi --file https://x.test/a.pdf';
    const run = await runBin(args.split(' '));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--text and --file are exclusive');
  });
});
