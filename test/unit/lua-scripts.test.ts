// The Redis scripts live in src/redis/scripts/*.lua; the build reads them through the generated
// src/redis/lua-sources.ts. A .lua edited without regenerating must not ship.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MODULE_FILE, renderLuaModule, SCRIPTS_DIR } from '../../scripts/lua-module.js';

describe('the Lua scripts', () => {
  it('src/redis/lua-sources.ts is up to date (npx tsx scripts/build-lua.ts)', () => {
    expect(readFileSync(MODULE_FILE, 'utf8')).toBe(renderLuaModule());
  });

  it('each script has a header naming every KEYS[i] and ARGV[i] it uses', () => {
    for (const file of readdirSync(SCRIPTS_DIR).filter((f) => f.endsWith('.lua'))) {
      const text = readFileSync(new URL(file, SCRIPTS_DIR), 'utf8');
      const header = text.slice(0, text.indexOf(']]'));
      const body = text.slice(text.indexOf(']]'));
      for (const [, kind, index] of body.matchAll(/(KEYS|ARGV)\[(\d+)\]/g)) {
        expect(header, `${file}: ${kind}[${index}]`).toContain(`${kind}[${index}]`);
      }
    }
  });
});
