// A scratch project with this package in its node_modules (a link to the repository, as `npm link`
// makes it), for a runtime to import `messaging-gateway-sdk/...` by name: it then resolves
// package.json's exports with its own conditions, as a user's import does (Deno and Bun take the
// `node` condition, dist/node/; a path into dist/ would test a build they never load).
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** The copy of the script to run, and what deletes the project (the link, not the repository). */
export interface LinkedProject {
  entry: string;
  remove(): void;
}

/** Makes a project under the system's temporary directory that holds a copy of `script`. */
export function linkedProject(script: string): LinkedProject {
  const dir = mkdtempSync(join(tmpdir(), 'mgsdk-runtime-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'messaging-gateway-sdk'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  const entry = join(dir, basename(script));
  copyFileSync(script, entry);
  return { entry, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
