import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', 'fixtures');

/** The fixture files of one folder as [name, text] pairs, name without extension. */
export function fixtures(folder: 'v2' | 'v3' | 'invalid'): [string, string][] {
  return readdirSync(join(root, folder))
    .sort()
    .map((file) => [file.replace(/\.(json|txt)$/, ''), readFileSync(join(root, folder, file), 'utf8')]);
}

/** One fixture's parsed JSON. */
export function fixture(folder: 'v2' | 'v3' | 'invalid', name: string): unknown {
  return JSON.parse(readFileSync(join(root, folder, `${name}.json`), 'utf8'));
}
