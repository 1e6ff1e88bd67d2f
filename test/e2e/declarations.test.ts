// Field docs reach the published declarations: hovering `MessageAdd.timestamp` in an editor says
// milliseconds. Builds the package as it is published (tsup) into a scratch folder, then asks the
// TypeScript language service what an editor would show.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let out = '';
beforeAll(() => {
  // Inside the project, so the declarations resolve zod from its node_modules.
  mkdirSync('.tmp', { recursive: true });
  out = mkdtempSync(join(process.cwd(), '.tmp', 'dts-'));
  execFileSync(process.execPath, ['node_modules/tsup/dist/cli-default.js', '--out-dir', out], {
    stdio: 'ignore',
  });
}, 120_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The documentation an editor shows when hovering `expression` (the last identifier in it). */
function hover(source: string, expression: string): string {
  const file = join(out, 'probe.ts');
  writeFileSync(file, `${source}\n${expression};\n`);
  const host: ts.LanguageServiceHost = {
    getScriptFileNames: () => [file],
    getScriptVersion: () => '1',
    getScriptSnapshot: (name) => ts.ScriptSnapshot.fromString(readFileSync(name, 'utf8')),
    getCurrentDirectory: () => process.cwd(),
    getCompilationSettings: () => ({
      strict: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
    }),
    getDefaultLibFileName: ts.getDefaultLibFilePath,
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
  };
  const service = ts.createLanguageService(host);
  const text = readFileSync(file, 'utf8');
  const info = service.getQuickInfoAtPosition(file, text.lastIndexOf(expression.split('.').pop() as string));
  return ts.displayPartsToString(info?.documentation ?? []);
}

describe('Field docs reach dist/*.d.ts', () => {
  const v2 = `import type { MessageAdd, V3ChannelUpdate } from './webhooks.js';\ndeclare const m: MessageAdd;\ndeclare const c: V3ChannelUpdate;`;

  it('the built declarations carry the field comments', () => {
    const dts = readdirSync(out)
      .filter((f) => f.endsWith('.d.ts'))
      .map((f) => readFileSync(join(out, f), 'utf8'))
      .join('\n');
    expect(dts).toContain('When the message was sent: Unix time in milliseconds.');
    expect(dts).toContain('Unique per delivery (documented as a UUIDv4): the key of deduplication.');
  });

  it('hovering MessageAdd.timestamp says milliseconds', () => {
    expect(hover(v2, 'm.timestamp')).toMatch(/milliseconds/);
    expect(hover(v2, 'm.recipient.chat_type')).toMatch(/Chat type/);
    expect(hover(v2, 'c.timestamp')).toMatch(/milliseconds/);
  });
});
