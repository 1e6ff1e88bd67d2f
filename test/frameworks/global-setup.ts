// The Bun, Deno and workerd tests run the BUILT /webhooks entry (dist/), as users get it: a run of
// vitest alone (not through `npm test`, which builds first) still gets a dist/ as new as src/.
import { buildIfStale } from '../../scripts/build-if-stale.js';

export default function setup(): void {
  if (process.env.SKIP_FRAMEWORK_TESTS === '1') return;
  buildIfStale();
}
