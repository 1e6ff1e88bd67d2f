// The four builds of tsup.config.ts share one folder and run at once; under `tsup --watch` a change
// rebuilds only the builds that read the changed file (a file of src/cli/ only the first). Each
// build run alone must leave the others' files where they are, and the Node build (dist/node/,
// chunks named by hash) must leave no chunk of an earlier build.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Options } from 'tsup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import config from '../../tsup.config.js';

let out = '';
let builds: Options[] = [];
beforeAll(() => {
  mkdirSync('.tmp', { recursive: true });
  out = mkdtempSync(join(process.cwd(), '.tmp', 'clean-'));
  const made = typeof config === 'function' ? config({ outDir: out }) : config;
  builds = (Array.isArray(made) ? made : [made]) as Options[];
});
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** Runs the build of tsup.config.ts at `index` alone, into the scratch folder. */
const runAlone = (index: number) => build({ ...builds[index], outDir: out, config: false, silent: true });
const file = (path: string) => join(out, path);

describe('tsup.config.ts: each build cleans only its own files', () => {
  it('the per-module build leaves the Node build (dist/node/) in place', { timeout: 120_000 }, async () => {
    mkdirSync(file('node'), { recursive: true });
    writeFileSync(file('node/index.js'), 'export {};\n');
    await runAlone(0);
    expect(existsSync(file('cli/main.js'))).toBe(true);
    expect(existsSync(file('node/index.js'))).toBe(true);
  });

  it('the Node build removes its older chunks and nothing of the others', { timeout: 120_000 }, async () => {
    writeFileSync(file('node/chunk-OLDBUILD.js'), 'export {};\n');
    await runAlone(1);
    expect(existsSync(file('node/chunk-OLDBUILD.js'))).toBe(false);
    expect(existsSync(file('node/webhooks.js'))).toBe(true);
    expect(existsSync(file('cli/main.js'))).toBe(true);
  });
});
