// The two bundles an edge user ships, from the packed package (scripts/bundle-size.ts), against
// their bounds.
import { BUNDLES, installPacked, kB, measureBundle } from '../scripts/bundle-size.js';
import { verdict } from './stats.js';

export async function bundleSizeBench(): Promise<{ lines: string[]; ok: boolean }> {
  const lines: string[] = [];
  let ok = true;
  const project = installPacked();
  try {
    for (const name of Object.keys(BUNDLES) as (keyof typeof BUNDLES)[]) {
      const { label, maxGzip } = BUNDLES[name];
      const size = await measureBundle(name, project);
      const fits = size.gzip <= maxGzip;
      ok &&= fits;
      lines.push(
        verdict(
          `size: ${label}, npm pack + esbuild --bundle --minify`,
          `${kB(size.gzip)} gzip (${kB(size.minified)} minified)`,
          fits,
          `≤ ${kB(maxGzip)}`,
        ),
      );
    }
  } finally {
    project.remove();
  }
  return { lines, ok };
}
