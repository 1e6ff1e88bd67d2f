// Stops a test run at once on a Node older than package.json's `engines.node` (>=X.Y), with one
// line saying which Node is needed: on an older Node the suite runs for minutes, fails hundreds of
// tests and crashes vitest's reporter. Run first by `npm test` and `npm run test:frameworks`, and
// loaded by vitest.config.ts for a bare `npx vitest`. Plain JavaScript, so any Node can run it.
import { readFileSync } from 'node:fs';

/** The line to print when this Node is too old for the package, or undefined when it is new enough. */
export function tooOldNode() {
  const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const [major, minor] = /^>=\s*(\d+)\.(\d+)/.exec(engines.node).slice(1).map(Number);
  const [haveMajor, haveMinor] = process.versions.node.split('.').map(Number);
  if (haveMajor > major || (haveMajor === major && haveMinor >= minor)) return undefined;
  return `messaging-gateway-sdk needs Node ${major}.${minor} or newer to build and test (package.json engines: "${engines.node}"); this is Node ${process.versions.node} (${process.execPath}). Switch to Node ${major}.${minor}+ (.nvmrc names ${readFileSync(new URL('../.nvmrc', import.meta.url), 'utf8').trim()}) and run again.`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const line = tooOldNode();
  if (line) {
    console.error(line);
    process.exit(1);
  }
}
