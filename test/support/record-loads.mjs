// Preloaded (node --import) into a run of the bin by test/e2e/cli-lazy-load.test.ts: writes the
// address of every module the process loaded, one per line, to $RECORD_LOADS_FILE when it exits.
// A synchronous module hook (node:module registerHooks) sees each load, tsx's included.
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const file = process.env.RECORD_LOADS_FILE;
const loaded = [];
if (file) {
  registerHooks({
    load(url, context, next) {
      loaded.push(url);
      return next(url, context);
    },
  });
  process.on('exit', () => writeFileSync(file, `${loaded.join('\n')}\n`));
}
