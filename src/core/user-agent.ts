import { VERSION } from '../version.js';

interface RuntimeGlobals {
  process?: { versions?: Record<string, string | undefined> };
  Deno?: { version?: { deno?: string } };
  navigator?: { userAgent?: string };
}

/** `node/24.1.0`, `bun/1.2.0`, `deno/2.1.0`, or the best the runtime tells about itself. */
function runtime(): string {
  const g = globalThis as RuntimeGlobals;
  const versions = g.process?.versions;
  if (versions?.bun) return `bun/${versions.bun}`;
  if (g.Deno?.version?.deno) return `deno/${g.Deno.version.deno}`;
  if (versions?.node) return `node/${versions.node}`;
  const agent = g.navigator?.userAgent;
  return agent ? agent.split(' ')[0] || 'runtime/unknown' : 'runtime/unknown';
}

/** `messaging-gateway-sdk/<version> node/<version>`: sent on every request. */
export const USER_AGENT = `messaging-gateway-sdk/${VERSION} ${runtime()}`;
