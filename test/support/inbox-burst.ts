// The inbox page under a burst of sends, in a real headless Chromium: thousands of messages held,
// then a burst of sends whose statuses advance by themselves. The test checks what the page ends
// showing; `npm run bench -- inbox-page` times the page's long tasks during the same burst.

import type { Browser, Page } from 'playwright-core';
import { createFakeGateway, type FakeGateway } from '../../src/testing.js';
import { openInboxPage } from './chromium.js';

/** Messages the fake holds before the page opens, messages sent in the burst, and their chats. */
export const INBOX_BURST = { held: 3000, burst: 6000, chats: 6 } as const;

/** A chat with a number from 000 fails every message: bad_contact. */
export const burstChatOf = (i: number): string =>
  i % INBOX_BURST.chats === 0 ? '000555' : `7900100${i % INBOX_BURST.chats}`;

/** A fake holding `INBOX_BURST.held` messages, its inbox page open, and the page's long tasks counted. */
export interface LoadedInbox {
  gateway: FakeGateway;
  browser: Browser;
  page: Page;
  /** Milliseconds of long tasks (main thread busy over 50 ms) the page has had since it opened. */
  longTaskMs(): Promise<number>;
  /** Closes the browser, then the fake. */
  close(): Promise<void>;
}

/**
 * Sends `n` messages numbered from `from` through the fake's API, one sender per chat at once;
 * returns the last text of each chat. Each chat's messages go one after another from its own
 * sender, so the last one sent is the last one the fake holds.
 */
export async function sendBurst(gateway: FakeGateway, n: number, from: number): Promise<Map<string, string>> {
  const last = new Map<string, string>();
  const concurrency = INBOX_BURST.chats;
  const worker = async (stripe: number) => {
    for (let i = from + stripe; i < from + n; i += concurrency) {
      const chat_id = burstChatOf(i);
      last.set(chat_id, `message ${i}`);
      const res = await fetch(`${gateway.url}/v2/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          channel_id: 'ch-load',
          recipient: { chat_type: 'whatsapp', chat_id },
          text: `message ${i}`,
        }),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`send ${i} answered ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, stripe) => worker(stripe)));
  return last;
}

/** Starts the fake, fills it with `INBOX_BURST.held` messages and opens its page with a long-task counter. */
export async function openLoadedInbox(): Promise<LoadedInbox> {
  const gateway = await createFakeGateway({
    autoScan: false,
    rateLimit: false,
    stepMs: 1,
    channels: [{ channel_id: 'ch-load', name: 'Load' }],
  });
  await sendBurst(gateway, INBOX_BURST.held, 0);
  await gateway.drain();
  const { browser, page } = await openInboxPage(gateway.url, (opening) =>
    opening.addInitScript(() => {
      const w = window as unknown as { __longTaskMs: number };
      w.__longTaskMs = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) w.__longTaskMs += entry.duration;
      }).observe({ type: 'longtask', buffered: true });
    }),
  );
  return {
    gateway,
    browser,
    page,
    longTaskMs: () => page.evaluate(() => (window as unknown as { __longTaskMs: number }).__longTaskMs),
    close: async () => {
      await browser.close();
      await gateway.close();
    },
  };
}

/**
 * Sends the burst and waits until the page shows each chat's last message in its final status
 * (`read`, or `failed` for the 000 chat); returns each chat's last text. Waits on what the page
 * shows, up to `timeoutMs` per chat (a safety net, default 60 s).
 */
export async function runBurst(inbox: LoadedInbox, timeoutMs = 60_000): Promise<Map<string, string>> {
  const last = await sendBurst(inbox.gateway, INBOX_BURST.burst, INBOX_BURST.held);
  await inbox.gateway.drain();
  for (const [chat_id, text] of last) {
    const status = chat_id.startsWith('000') ? 'failed' : 'read';
    const bubble = `[data-chat="${chat_id}"] .msg:last-child`;
    await inbox.page.waitForSelector(`${bubble}[data-status="${status}"] .text:text-is("${text}")`, {
      timeout: timeoutMs,
    });
  }
  return last;
}
