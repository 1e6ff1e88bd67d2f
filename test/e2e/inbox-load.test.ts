// The inbox page under load in a real headless Chromium: thousands of messages held, then a burst
// of sends whose statuses advance by themselves. What the page shows at the end is the fake's
// final state: every chat's last message in its final status, each chat bounded. How much of the
// burst the page spends in long tasks is a figure of `npm run bench -- inbox-page`, not of this
// test: on a busy machine it moves with the load.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INBOX_BURST, type LoadedInbox, openLoadedInbox, runBurst } from '../support/inbox-burst.js';
import { PARTS, skipWithout } from '../support/system-parts.js';

const skip = skipWithout(PARTS.chromium, 'SKIP_FRAMEWORK_TESTS');

let inbox: LoadedInbox;

describe.skipIf(skip)('the inbox page under a burst of sends, in a headless browser', () => {
  beforeAll(async () => {
    inbox = await openLoadedInbox();
  }, 120_000);

  afterAll(async () => {
    await inbox?.close();
  });

  it('ends showing the final state of every chat, none lost, each chat bounded', async () => {
    const last = await runBurst(inbox);

    const chats = await inbox.page.$$eval('#chats .chat', (all) =>
      all.map((chat) => ({
        id: (chat as HTMLElement).dataset.chat,
        shown: chat.querySelectorAll('.msg').length,
        earlier: chat.querySelector('.earlier')?.textContent ?? '',
        failed: chat.querySelector('.msg:last-child .state')?.textContent,
      })),
    );
    expect(chats.map((c) => c.id).sort()).toEqual([...last.keys()].sort());
    const perChat = (INBOX_BURST.held + INBOX_BURST.burst) / INBOX_BURST.chats;
    for (const chat of chats) {
      // bounded: the newest messages of each chat, and a line counting the others
      expect(chat.shown).toBeGreaterThan(0);
      expect(chat.shown).toBeLessThanOrEqual(50);
      expect(chat.earlier).toBe(`${perChat - chat.shown} earlier messages`);
      if (chat.id?.startsWith('000')) expect(chat.failed).toBe('failed: bad_contact');
    }
  }, 300_000);
});
