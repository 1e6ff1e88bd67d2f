// A Worker (module syntax) served by workerd itself, the runtime wrangler and Miniflare run: the
// entry bundled for it with esbuild, a config with one service and one HTTP socket on 127.0.0.1.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { freePort } from '../support/servers.js';
import { binary, type RuntimeProcess, startRuntime } from './runtime-process.js';

const CONFIG = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = "worker", esModule = embed "worker.js")],
  compatibilityDate = "2025-09-01",
);
`;

/** Bundles `entry` into `dir` and serves it with workerd on a free port; stop it when done. */
export async function startWorkerd(entry: string, dir: string, args: string[] = []): Promise<RuntimeProcess> {
  await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    outfile: join(dir, 'worker.js'),
    logLevel: 'silent',
  });
  writeFileSync(join(dir, 'config.capnp'), CONFIG);
  const port = await freePort();
  return startRuntime(
    binary('workerd'),
    ['serve', join(dir, 'config.capnp'), `--socket-addr=http=127.0.0.1:${port}`, ...args],
    { port },
  );
}
