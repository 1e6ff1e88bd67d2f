// The inbox page is written as plain files in src/testing/inbox/; the build reads them through
// the generated src/testing/inbox/assets.ts. A file edited without regenerating must not ship.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INBOX_MODULE, renderInboxModule } from '../../scripts/inbox-module.js';
import { INBOX_FILES } from '../../src/testing/inbox/assets.js';

describe("the inbox page's files", () => {
  it('src/testing/inbox/assets.ts is up to date (npx tsx scripts/build-inbox.ts)', () => {
    expect(readFileSync(INBOX_MODULE, 'utf8')).toBe(renderInboxModule());
  });

  it('load nothing from the network and put no data in as HTML', () => {
    const all = Object.values(INBOX_FILES).join('\n');
    expect(all).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
    for (const script of ['inbox.js', 'inbox-live.js', 'inbox-log.js'] as const) {
      expect(INBOX_FILES[script], script).not.toMatch(
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/,
      );
    }
    expect(INBOX_FILES['index.html']).toContain('{{PAGE_TOKEN}}');
  });
});
