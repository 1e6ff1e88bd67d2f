import { type Browser, chromium, type Page } from 'playwright-core';
import { findCommand, PARTS } from './system-parts.js';

/**
 * Debian's chromium, headless, as the page tests drive it: no sandbox (CI runs as root), no GPU,
 * and none of the browser's own network traffic (tests talk only to 127.0.0.1).
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: findCommand(PARTS.chromium.command) ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * The fake gateway's inbox page at `url`, open and live in a new browser (1100 × 800), steps
 * waiting at most 5 s; `beforeOpen` runs before the page loads (an init script).
 */
export async function openInboxPage(
  url: string,
  beforeOpen?: (page: Page) => Promise<unknown>,
): Promise<{ browser: Browser; page: Page }> {
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
  page.setDefaultTimeout(5000);
  await beforeOpen?.(page);
  await page.goto(`${url}/`);
  await page.waitForSelector('#live:text("live")');
  return { browser, page };
}
