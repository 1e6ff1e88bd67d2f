// Bun, from its npm package: Bun.serve with the built /webhooks entry, imported by the package's
// name from a project that has it installed, so Bun picks the file as for a user.
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { linkedProject } from './linked-project.js';
import { runtimeSmoke } from './runtime-cases.js';
import { binary, startRuntime } from './runtime-process.js';

const project = linkedProject(join(import.meta.dirname, 'runtimes', 'bun-server.mjs'));
afterAll(() => project.remove());

runtimeSmoke('Bun', () => startRuntime(binary('bun'), [project.entry]));
