// The two bundles an edge user ships (scripts/bundle-size.ts), against their bounds.
import { BUNDLES, kB, measureBundle } from '../scripts/bundle-size.js';
import { verdict } from './stats.js';

export async function bundleSizeBench(): Promise<{ lines: string[]; ok: boolean }> {
  const lines: string[] = [];
  let ok = true;
  for (const name of Object.keys(BUNDLES) as (keyof typeof BUNDLES)[]) {
    const { label, maxGzip } = BUNDLES[name];
    const size = await measureBundle(name);
    const fits = size.gzip <= maxGzip;
    ok &&= fits;
    lines.push(
      verdict(
        `size: ${label}, esbuild --bundle --minify`,
        `${kB(size.gzip)} gzip (${kB(size.minified)} minified)`,
        fits,
        `≤ ${kB(maxGzip)}`,
      ),
    );
  }
  return { lines, ok };
}
