// Cloudflare Workers in workerd itself (the npm package `workerd`, the runtime wrangler and
// Miniflare run): fetch(request, env, ctx) with ctx.waitUntil keeps background listeners alive
// after the 200; without ctx the runtime drops them once the answer is sent.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageAdd } from '../support/deliveries.js';
import { freePort } from '../support/servers.js';
import { skipFrameworks } from './cases.js';
import { binary, eventually, type RuntimeProcess, startRuntime } from './runtime-process.js';

const config = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = "worker", esModule = embed "worker.js")],
  compatibilityDate = "2025-09-01",
);
`;

describe.skipIf(skipFrameworks)('Cloudflare Workers (workerd): waitUntil', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mgsdk-workerd-'));
  let worker: RuntimeProcess;
  const finished = async () => (await (await fetch(`${worker.url}/finished`)).json()) as string[];
  const deliver = async (path: string) => {
    const key = crypto.randomUUID();
    const answer = await fetch(`${worker.url}${path}?secret=worker-secret`, {
      method: 'POST',
      body: messageAdd(key),
    });
    expect(answer.status).toBe(200);
    return key;
  };

  beforeAll(async () => {
    await build({
      entryPoints: [join(import.meta.dirname, 'runtimes', 'worker.mjs')],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      mainFields: ['module', 'main'],
      outfile: join(dir, 'worker.js'),
      logLevel: 'silent',
    });
    writeFileSync(join(dir, 'config.capnp'), config);
    const port = await freePort();
    worker = await startRuntime(
      binary('workerd'),
      ['serve', join(dir, 'config.capnp'), `--socket-addr=http=127.0.0.1:${port}`, '--verbose'],
      { port },
    );
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finishes a background listener after the 200 when ctx is passed (fetch(request, env, ctx))', async () => {
    const key = await deliver('/hooks');
    expect(await finished()).not.toContain(key); // answered before the listener ended
    await eventually(async () => (await finished()).includes(key));
  });

  it('loses it without ctx: the runtime stops the work once the answer is sent', async () => {
    const key = await deliver('/no-context');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await finished()).not.toContain(key);
  });
});
