// Cloudflare Workers in workerd itself (the npm package `workerd`, the runtime wrangler and
// Miniflare run): fetch(request, env, ctx) with ctx.waitUntil keeps background listeners alive
// after the 200; without ctx the runtime drops them once the answer is sent.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageAdd } from '../support/deliveries.js';
import { skipFrameworks } from './cases.js';
import { eventually, type RuntimeProcess } from './runtime-process.js';
import { startWorkerd } from './workerd.js';

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
    worker = await startWorkerd(join(import.meta.dirname, 'runtimes', 'worker.mjs'), dir, ['--verbose']);
  }, 30_000);
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
