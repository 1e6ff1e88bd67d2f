// The fake gateway's inbox page in a headless Chromium during a burst: 3,000 messages held, then
// 6,000 sends whose statuses advance by themselves. A PerformanceObserver in the page adds up its
// long tasks (main thread busy over 50 ms); the page applies each change to its own elements, so
// they stay a small share of the burst. Redrawing everything on each update made it 0.9 and more.
// Needs `chromium`; runs the source, as the test of the same burst does (test/e2e/inbox-load.test.ts).

import { INBOX_BURST, openLoadedInbox, runBurst } from '../test/support/inbox-burst.js';
import { findCommand, PARTS } from '../test/support/system-parts.js';
import { verdict } from './stats.js';

/** The long tasks' share of the burst that the page may take (about 0.05 on a quiet machine). */
const LONG_TASK_BUDGET = 0.25;

export async function inboxPageBench(): Promise<{ lines: string[]; ok: boolean }> {
  if (!findCommand(PARTS.chromium.command))
    return { lines: [`skip  inbox-page: chromium not found (install: ${PARTS.chromium.install})`], ok: true };
  const inbox = await openLoadedInbox();
  try {
    const before = await inbox.longTaskMs();
    const start = performance.now();
    await runBurst(inbox);
    const elapsed = performance.now() - start;
    const share = ((await inbox.longTaskMs()) - before) / elapsed;
    return {
      lines: [
        `inbox-page: long tasks ${(share * 100).toFixed(1)} % of ${(elapsed / 1000).toFixed(1)} s (${INBOX_BURST.burst} sends onto ${INBOX_BURST.held})`,
        verdict('inbox-page long tasks', share.toFixed(2), share < LONG_TASK_BUDGET, `< ${LONG_TASK_BUDGET}`),
      ],
      ok: share < LONG_TASK_BUDGET,
    };
  } finally {
    await inbox.close();
  }
}
