import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasPostgresServer } from '../support/postgres-targets.js';

describe('examples/ run against the fake gateway when no credentials are set', () => {
  it('npm run examples: every example exits 0, and at GATEWAY_LOG=debug no log line holds a secret, a text or a full phone', {
    timeout: 420_000, // a safety net: every example, two of them starting a PGlite, one a PostgreSQL
  }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgsdk-log-'));
    const logFile = join(dir, 'log.jsonl');
    try {
      const env = {
        ...process.env,
        GATEWAY_BASE_URL: '',
        GATEWAY_TOKEN: '',
        GATEWAY_API_KEY: '',
        GATEWAY_LOG: 'debug',
        CAPTURE_LOG_FILE: logFile,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${resolve('test/support/capture-console.mjs')}`,
      };
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/run-examples.ts'], {
        env,
        encoding: 'utf8',
      });
      expect(run.stdout).toMatch(/\d+ passed, 0 failed/);
      expect(run.status, run.stderr).toBe(0);
      // The guide's ORM examples (docs/postgres.md), Prisma's on a private PostgreSQL the runner
      // starts: one contact for a repeated CRM request, the message saved, the send read.
      for (const example of ['drizzle-crm.ts', ...(hasPostgresServer() ? ['prisma-crm.ts'] : [])]) {
        const output = run.stdout.split('── examples/').find((part) => part.startsWith(example));
        expect(output, example).toContain('contacts: 1');
        expect(output, example).toMatch(/outbox row \d+ read/);
        expect(output, example).toContain("messages saved by the worker: [ 'Where is my order?' ]");
      }

      const lines = readFileSync(logFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { level: string; line: string })
        .filter((l) => l.line.startsWith('[messaging-gateway-sdk]'));
      // Every example makes calls: at debug each attempt is a line.
      expect(lines.filter((l) => l.level === 'debug').length).toBeGreaterThan(20);
      const all = lines.map((l) => l.line).join('\n');
      for (const secret of ['fake-gateway-token', 'fake-gateway-api-key', 'Bearer'])
        expect(all).not.toContain(secret);
      for (const text of messageTexts()) expect(all, text).not.toContain(text);
      expect(all).not.toMatch(/(?<![\w\-…])\+?\d{7,}(?![\w-])/); // a full phone number
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Every message text the examples send: `text: '…'` in their source, 6 characters or more. */
function messageTexts(): string[] {
  const texts: string[] = [];
  for (const file of readdirSync('examples').filter((f) => f.endsWith('.ts'))) {
    const source = readFileSync(join('examples', file), 'utf8');
    for (const match of source.matchAll(/\btext: ['`]([^'`$]{6,})/g)) texts.push(match[1] as string);
  }
  expect(texts.length).toBeGreaterThan(5);
  return texts;
}
