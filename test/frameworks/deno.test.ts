// Deno, from its npm package: Deno.serve with the built /webhooks entry, imported by the package's
// name from a project that has it installed (Deno reads package.json and node_modules), so Deno
// picks the file as for a user; with network and read access only.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { linkedProject } from './linked-project.js';
import { runtimeSmoke } from './runtime-cases.js';
import { binary, startRuntime } from './runtime-process.js';

const denoDir = mkdtempSync(join(tmpdir(), 'mgsdk-deno-'));
const project = linkedProject(join(import.meta.dirname, 'runtimes', 'deno-server.mjs'));
afterAll(() => {
  rmSync(denoDir, { recursive: true, force: true });
  project.remove();
});

runtimeSmoke('Deno', () =>
  startRuntime(
    binary('deno'),
    ['run', '--allow-net=127.0.0.1', '--allow-read', '--no-prompt', project.entry],
    { env: { DENO_DIR: denoDir, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' } },
  ),
);
