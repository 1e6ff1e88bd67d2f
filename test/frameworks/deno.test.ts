// Deno, from its npm package: Deno.serve with the built /webhooks entry, which finds zod in
// node_modules (Deno reads package.json), with network and read access only.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { runtimeSmoke } from './runtime-cases.js';
import { binary, startRuntime } from './runtime-process.js';

const denoDir = mkdtempSync(join(tmpdir(), 'mgsdk-deno-'));
afterAll(() => rmSync(denoDir, { recursive: true, force: true }));

runtimeSmoke('Deno', () =>
  startRuntime(
    binary('deno'),
    [
      'run',
      '--allow-net=127.0.0.1',
      '--allow-read',
      '--no-prompt',
      join(import.meta.dirname, 'runtimes', 'deno-server.mjs'),
    ],
    { env: { DENO_DIR: denoDir, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' } },
  ),
);
