// The bin under hostile input: what it reads and builds is bounded, and it never crashes.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_SET_DEPTH, overridesFrom } from '../../src/cli/set-path.js';
import { buildWebhook } from '../../src/testing/build-webhook.js';
import { BIN_RUNS_TIMEOUT_MS, runBin, startBin } from '../support/run-bin.js';
import { listen } from '../support/servers.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

describe('--set paths', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  for (const segment of ['__proto__', 'constructor', 'prototype']) {
    it(`refuses a "${segment}" segment and leaves Object.prototype alone`, () => {
      expect(() => overridesFrom([`data.0.${segment}.polluted=yes`])).toThrow(/--set.*not allowed/);
      expect(() => overridesFrom([`${segment}.polluted:=true`])).toThrow(/not allowed/);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  }

  it('refuses an index that would build a huge array', () => {
    expect(() => overridesFrom(['data.10000000=x'])).toThrow(/index 10000000 is too large \(at most/);
    expect(overridesFrom(['data.2=x'])).toEqual({ data: [{}, {}, 'x'] });
  });

  it('refuses a path deeper than MAX_SET_DEPTH, naming the limit; sets one at the limit', () => {
    const deep = Array.from({ length: 30_000 }, () => 'a').join('.');
    expect(() => overridesFrom([`${deep}=1`])).toThrow(
      `the path has 30000 segments; at most ${MAX_SET_DEPTH}`,
    );
    const atLimit = Array.from({ length: MAX_SET_DEPTH }, () => 'a');
    let node: unknown = overridesFrom([`${atLimit.join('.')}=1`]);
    for (const step of atLimit) node = (node as Record<string, unknown>)[step];
    expect(node).toBe('1');
  });

  it('refuses a :=json value nested deeper than MAX_SET_DEPTH', () => {
    const nested = `${'['.repeat(30_000)}${']'.repeat(30_000)}`;
    expect(() => overridesFrom([`data.0.text:=${nested}`])).toThrow(
      `nests more than ${MAX_SET_DEPTH} levels deep`,
    );
    const fits = `${'['.repeat(MAX_SET_DEPTH)}${']'.repeat(MAX_SET_DEPTH)}`;
    expect(() => overridesFrom([`x:=${fits}`])).not.toThrow();
  });

  it('the bin exits 2, naming the limit, on a 30,000-segment path or value, and sends nothing', async () => {
    let requests = 0;
    const { url, close } = await listen((_req, res) => {
      requests++;
      res.end('{}');
    });
    closers.push(close);
    const deep = Array.from({ length: 30_000 }, () => 'a').join('.');
    for (const set of [`${deep}=1`, `data.0.text:=${'['.repeat(30_000)}${']'.repeat(30_000)}`]) {
      const { code, stderr } = await runBin(['trigger', 'message.add', '--to', url, '--set', set]);
      expect(code).toBe(2);
      expect(stderr).toContain(`${MAX_SET_DEPTH}`);
      expect(stderr).not.toMatch(/call stack/);
    }
    expect(requests).toBe(0);
  });

  it('the bin exits 2 on such a path without sending anything', async () => {
    const { code, stderr } = await runBin([
      'trigger',
      'message.add',
      '--to',
      'http://127.0.0.1:9/',
      '--set',
      '__proto__.x=1',
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain('not allowed');
  });
});

describe('decode under hostile input', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  it('stops reading an endless standard input past 5 MiB with a clear message, exit 1', async () => {
    const child = startBin(['decode']);
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.stdin.on('error', () => {});
    const chunk = Buffer.alloc(1 << 20, 0x20);
    let written = 0;
    const pump = () => {
      while (child.stdin.writable && written < 64 && child.stdin.write(chunk)) written++;
      if (child.stdin.writable && written < 64) child.stdin.once('drain', pump);
    };
    pump();
    const [code] = await once(child, 'close');
    expect(code).toBe(1);
    expect(stderr).toContain('larger than 5 MiB');
    expect(written).toBeLessThan(64);
  });

  it('exits quietly when its reader goes away (decode | head)', async () => {
    const body = buildWebhook('message.add', {
      data: Array.from({ length: 3000 }, () => ({ text: 'x'.repeat(200) })),
    } as never);
    const child = startBin(['decode']);
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.stdin.end(JSON.stringify(body));
    await once(child.stdout, 'data');
    child.stdout.destroy();
    const [code] = await once(child, 'close');
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('decodes a valid body 2M levels deep without overflowing the stack', async () => {
    const valid = JSON.stringify(buildWebhook('message.add', {}, { seed: 's' }));
    const n = 2_000_000;
    const body = valid.replace(/\}\]/, `,"x":${'['.repeat(n)}${']'.repeat(n)}}]`);
    const { code, stdout, stderr } = await runBin(['decode'], body);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('v2 message.add (1 item)');
    expect(stdout).toContain('nested too deeply to print');
    const json = await runBin(['decode', '--json'], body);
    expect([json.code, JSON.parse(json.stdout).ok]).toEqual([0, true]);
  });
});

describe('trigger under hostile input', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  it('stops reading an endless answer past 1 MiB, exit 1', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    const { url, close } = await listen(server);
    closers.push(close);
    const { code, stdout, stderr } = await runBin(['trigger', 'message.add', '--to', url]);
    expect(code).toBe(1);
    expect(stderr).toContain('larger than 1 MiB');
    expect(stdout.length).toBeLessThan(2 * 1024 * 1024);
  });
});
