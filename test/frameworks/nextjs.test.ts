// Next.js (app router) as the docs show it: the route builds its handler on the first request, so
// `next build` runs with no secret in its environment ("Collecting page data" imports the route);
// then `next start` with the secret answers a real delivery. The app lives under
// test/frameworks/.tmp/. Its files are JavaScript: a TypeScript app makes `next build` demand
// @types/react, which this package has no other use for (the route's text is the same in both
// languages).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageAdd } from '../support/deliveries.js';
import { freePort } from '../support/servers.js';
import { SECRET, skipFrameworks } from './cases.js';

const root = join(import.meta.dirname, '..', '..');
// Inside the matrix's project, so the app finds next, react and react-dom in its node_modules.
const app = join(import.meta.dirname, '.tmp', 'next-app');
const nextBin = join(import.meta.dirname, 'node_modules', 'next', 'dist', 'bin', 'next');

// The route exactly as docs/receiving-webhooks.md writes it.
const ROUTE = `import { createFetchHandler, WebhookHandler } from 'messaging-gateway-sdk/webhooks';

export const POST = createFetchHandler(
  () => new WebhookHandler({ secret: process.env.WEBHOOK_SECRET, dispatch: 'await' }),
);
`;

/** The environment without the secret (nor anything of this test run that Next would pick up). */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { WEBHOOK_SECRET: _secret, NODE_ENV: _mode, ...rest } = process.env;
  return { ...rest, NEXT_TELEMETRY_DISABLED: '1', ...extra };
}

function writeApp(): void {
  rmSync(app, { recursive: true, force: true });
  mkdirSync(join(app, 'app', 'api', 'hooks'), { recursive: true });
  mkdirSync(join(app, 'node_modules'), { recursive: true });
  symlinkSync(root, join(app, 'node_modules', 'messaging-gateway-sdk'), 'dir'); // the package as installed
  writeFileSync(join(app, 'app', 'api', 'hooks', 'route.js'), ROUTE);
  writeFileSync(
    join(app, 'app', 'layout.js'),
    'export default function Root({ children }) { return <html><body>{children}</body></html>; }\n',
  );
  writeFileSync(
    join(app, 'next.config.mjs'),
    `export default { turbopack: { root: ${JSON.stringify(root)} } };\n`,
  );
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'next-app', private: true, type: 'module' }),
  );
}

describe.skipIf(skipFrameworks)('Next.js: next build without the secret, next start with it', () => {
  let server: ChildProcess | undefined;
  let url = '';

  beforeAll(async () => {
    writeApp();
    await promisify(execFile)(process.execPath, [nextBin, 'build'], {
      cwd: app,
      env: env(),
      maxBuffer: 1 << 24,
    });
    const port = await freePort();
    server = spawn(process.execPath, [nextBin, 'start', '-p', String(port), '-H', '127.0.0.1'], {
      cwd: app,
      env: env({ WEBHOOK_SECRET: SECRET }),
      stdio: 'ignore',
      detached: true, // its own process group, stopped whole
    });
    url = `http://127.0.0.1:${port}/api/hooks`;
    for (let i = 0; i < 300; i++) {
      const up = await fetch(url, { method: 'GET' }).then(
        () => true,
        () => false,
      );
      if (up) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('next start did not answer within 30 s');
  }, 240_000);

  afterAll(() => {
    if (server?.pid) process.kill(-server.pid, 'SIGTERM');
  });

  it('answers a real delivery 200 and a delivery without the secret 401', async () => {
    const post = (query: string) =>
      fetch(`${url}${query}`, {
        method: 'POST',
        body: messageAdd(),
        headers: { 'content-type': 'application/json' },
      });
    expect((await post(`?secret=${SECRET}`)).status).toBe(200);
    expect((await post('?secret=wrong')).status).toBe(401);
  });
});
