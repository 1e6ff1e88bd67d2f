// One PGlite per test file: started before the file's first test, closed after its last. Starting
// one takes seconds (more than 20 on a busy machine), so no test and no per-test hook pays for it.
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll } from 'vitest';

/**
 * The time-out of the hook that starts the file's PGlite: a safety net for a busy machine, not a
 * budget (it starts in about 8 s on a loaded 2-core machine).
 */
export const PGLITE_START_MS = 120_000;

/**
 * Registers the file's PGlite: `beforeAll` starts it (time-out `PGLITE_START_MS`), `afterAll`
 * closes it. Call at the top level of a test file (or of a `describe`); `get()` is the running
 * instance, which the file's tests share (each in a schema of its own).
 */
export function pgliteOncePerFile(): { get(): Promise<PGlite> } {
  let started: Promise<PGlite> | undefined;
  const get = () => {
    started ??= PGlite.create();
    return started;
  };
  beforeAll(async () => {
    await get();
  }, PGLITE_START_MS);
  afterAll(async () => (await started)?.close());
  return { get };
}
