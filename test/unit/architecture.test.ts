// The folders of the architecture, kept honest: which folder may import which, and no cycle
// (type-only imports included: a cycle of types is still two files that cannot be read apart).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every file of src/ and the src/ files it imports (relative imports, types included). */
const graph = new Map(
  sourceFiles('src').map((file) => {
    const text = readFileSync(join(root, file), 'utf8');
    const imports = [...text.matchAll(/from\s+'(\.{1,2}\/[^']+)'/g)].map((m) =>
      relative(root, resolve(root, dirname(file), m[1] as string)).replace(/\.js$/, '.ts'),
    );
    return [file, imports] as const;
  }),
);

function importsOf(folder: string): string[] {
  return [...graph].filter(([file]) => file.startsWith(folder)).flatMap(([, imports]) => imports);
}

describe('Architecture', () => {
  it('has no import cycle in src/', () => {
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const cycles: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      stack.push(file);
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].join(' → '));
        else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of graph.keys()) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });

  it('the core knows nothing of resources, webhooks, tracking, Redis, the kit or the bin', () => {
    const outside = importsOf('src/core/').filter((f) =>
      /^src\/(resources|webhooks|tracking|redis|postgres|testing|cli)\//.test(f),
    );
    expect(outside).toEqual([]);
  });

  it('postgres/ imports what redis/ may: the core, internal/, tracking/ and the receive contracts, nothing of another store, the kit or the bin', () => {
    const allowed = /^src\/(core|internal|tracking|schemas|webhooks\/receive|webhooks\/decode|postgres)\//;
    expect(importsOf('src/postgres/').filter((f) => !allowed.test(f))).toEqual([]);
    expect(importsOf('src/webhooks/').filter((f) => f.startsWith('src/postgres/'))).toEqual([]);
  });

  it('internal/ helpers stand alone: they import nothing else of the SDK', () => {
    expect(importsOf('src/internal/').filter((f) => !f.startsWith('src/internal/'))).toEqual([]);
  });

  it('adapters only translate: they import the receive pipeline’s types and helpers, nothing of decoding', () => {
    const imports = importsOf('src/webhooks/adapters/');
    expect(imports.filter((f) => f.startsWith('src/webhooks/decode/'))).toEqual([]);
    expect(imports.some((f) => f.startsWith('src/webhooks/receive/'))).toBe(true);
  });

  it('receiving knows nothing of resources: the connect flow is the client’s, and hears deliveries through the handler’s listeners', () => {
    expect(importsOf('src/webhooks/receive/').filter((f) => f.startsWith('src/resources/'))).toEqual([]);
  });

  it('WebhookHandler has no method for the connect flow (its published types show none)', async () => {
    const { WebhookHandler } = await import('../../src/webhooks/receive/handler.js');
    // Symbol-keyed methods too: a hidden `[CONNECT]` may be keyed by a symbol as well as a string.
    const methods = Reflect.ownKeys(WebhookHandler.prototype).map(String);
    expect(methods.filter((name) => /connect/i.test(name))).toEqual([]);
  });

  it('no file reads the private state of a dependency (an emitter’s _events)', () => {
    const readers = sourceFiles('src').filter((file) =>
      /\b_events\b/.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(readers).toEqual([]);
  });

  it('decoding does not depend on receiving', () => {
    expect(importsOf('src/webhooks/decode/').filter((f) => f.startsWith('src/webhooks/receive/'))).toEqual(
      [],
    );
  });

  it('the bin tests a plain object with internal/is-record, not a copy of it', () => {
    const copies = sourceFiles('src/cli').filter((file) =>
      /typeof \w+ === 'object'[^\n]*Array\.isArray/.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(copies).toEqual([]);
  });

  it('the PNG signature is written once (internal/png-signature), whoever reads or writes a PNG', () => {
    const copies = sourceFiles('src').filter((file) =>
      /0x89,\s*0x50,\s*0x4e,\s*0x47/i.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(copies).toEqual(['src/internal/png-signature.ts']);
  });

  it('no two files share a name within src/webhooks (a reader guesses right the first time)', () => {
    const names = sourceFiles('src/webhooks').map((f) => f.split('/').pop());
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });
});

describe('The bench runner builds dist/ before any bench loads it', () => {
  /** The files of bench/ that `file` imports statically, and the files they import, and so on. */
  function staticImports(file: string, seen = new Set<string>()): Set<string> {
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(/^import\s[^;]*?from\s+'(\.\/[^']+)'/gm)) {
      const next = join('bench', (m[1] as string).replace(/\.js$/, '.ts'));
      if (!seen.has(next)) {
        seen.add(next);
        staticImports(next, seen);
      }
    }
    return seen;
  }

  it('bench/run.ts imports no bench that imports dist/ statically: such an import is resolved before buildIfStale runs', () => {
    // On a fresh clone (no dist/ yet) `npm run bench` stopped at ERR_MODULE_NOT_FOUND.
    const readsDist = [...staticImports('bench/run.ts')].filter((file) =>
      /from\s+'\.\.\/dist\//.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(readsDist).toEqual([]);
  });
});
