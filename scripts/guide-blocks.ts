// The ```ts blocks of README.md and of the guides in docs/, with the mark on their first line:
//   // not compiled: <why>        a fragment: scripts/check-readme.ts leaves it out
//   // runs: <what it needs>       a program a reader runs as written: compiled like every block,
//                                  and run by a test in test/guides/ that checks what it prints or does
// scripts/check-readme.ts compiles them; test/guides/ runs the marked ones.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** The repository's root. */
export const ROOT = join(import.meta.dirname, '..');

const NOT_COMPILED = /^\/\/ not compiled: \S/;
const RUNS = /^\/\/ runs: (\S.*)$/;

/** One ```ts block of a document. */
export interface GuideBlock {
  /** The document, relative to the root: `README.md`, `docs/sending.md`. */
  document: string;
  /** The line of the block's first line of code (1-based), for messages: `docs/sending.md:57`. */
  line: number;
  /** The text of the nearest heading above the block, without its `#`s. */
  heading: string;
  code: string;
  /** `compiled`: checked by tsc only; `runs`: also run by a test; `fragment`: not compiled. */
  kind: 'compiled' | 'runs' | 'fragment';
  /** What a `runs` block needs, as its mark says it (for the reader; the test provides it). */
  needs?: string;
}

/** README.md and every guide in docs/, in a stable order. */
export function guideDocuments(): string[] {
  return [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => `docs/${name}`),
  ];
}

/** Every ```ts block of `document` (a path relative to the root). */
export function blocksOf(document: string): GuideBlock[] {
  const found: GuideBlock[] = [];
  const lines = readFileSync(join(ROOT, document), 'utf8').split('\n');
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const title = /^#{1,6} (.+)$/.exec(line);
    if (title) heading = title[1]?.trim() ?? '';
    // Blocks may be indented (inside a list item); their code is taken as written.
    const fence = /^(\s*)```(ts|typescript)\s*$/.exec(line);
    if (!fence) continue;
    const indent = fence[1] ?? '';
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end] ?? '')) end++;
    const code = lines
      .slice(start, end)
      .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
      .join('\n');
    const first = code.split('\n')[0] ?? '';
    const runs = RUNS.exec(first);
    found.push({
      document,
      line: start + 1,
      heading,
      code,
      kind: runs ? 'runs' : NOT_COMPILED.test(first) ? 'fragment' : 'compiled',
      ...(runs && { needs: runs[1] }),
    });
    i = end;
  }
  return found;
}

/** The name of the test file that runs a document's `runs` blocks: `test/guides/sending.test.ts`. */
export function guideTestFile(document: string): string {
  const name = basename(document, '.md');
  return `test/guides/${name === 'README' ? 'readme' : name}.test.ts`;
}
