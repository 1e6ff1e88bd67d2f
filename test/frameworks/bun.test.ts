// Bun, from its npm package: Bun.serve with the built /webhooks entry.
import { join } from 'node:path';
import { runtimeSmoke } from './runtime-cases.js';
import { binary, startRuntime } from './runtime-process.js';

runtimeSmoke('Bun', () =>
  startRuntime(binary('bun'), [join(import.meta.dirname, 'runtimes', 'bun-server.mjs')]),
);
