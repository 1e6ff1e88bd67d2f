// One process running guide blocks as a reader runs a script (`npx tsx script.ts`): the values
// earlier sections give first (reader-context.ts), then each block's module in the order given.
// It tells its parent once every block's top level has run, and exits when the parent says so:
// a block may leave a server running, as the reader's program would. A block that throws ends
// the process as an uncaught error does (its stack on standard error, exit code 1).
import { pathToFileURL } from 'node:url';

await import('./reader-context.js');
for (const file of process.argv.slice(2)) await import(pathToFileURL(file).href);
process.send?.('evaluated');
process.on('message', (message) => {
  if (message === 'exit') process.exit(0);
});
