// The inbox page in a real headless Chromium, fed what a careless or hostile caller of the fake can
// make: a customer's message carrying the id of one the CRM sent, and edits and deletes around the
// newest 50 messages a chat shows. What the page shows live must be what a reload shows.
import { createFakeGateway, type FakeGateway } from 'messaging-gateway-sdk/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openInboxPage } from '../support/chromium.js';
import { PARTS, skipWithout } from '../support/system-parts.js';

const skip = skipWithout(PARTS.chromium, 'SKIP_FRAMEWORK_TESTS');

let browser: Browser;
let page: Page;
let gateway: FakeGateway;

async function api(method: string, path: string, body: unknown) {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${gateway.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { data: Record<string, string> };
}

/** Sends `text` to `chat_id`; resolves to the message's id. */
async function send(chat_id: string, text: string) {
  const recipient = { chat_type: 'whatsapp', chat_id };
  const { data } = await api('POST', '/v2/messages', { channel_id: 'ch-h', recipient, text });
  return [...gateway.messages.values()].find((m) => m.request_id === data.request_id)?.message_id as string;
}

/** The texts a chat shows, oldest first, once the page has the fake's latest update. */
async function textsOf(chatId: string) {
  await page.waitForTimeout(600); // an update at most every 250 ms
  return page.$$eval(`[data-chat="${chatId}"] .msg .text`, (nodes) => nodes.map((n) => n.textContent));
}

describe.skipIf(skip)('the inbox page fed hostile data, in a headless browser', () => {
  beforeAll(async () => {
    gateway = await createFakeGateway({
      autoScan: false,
      autoStatuses: false,
      rateLimit: false,
      stepMs: 1,
      channels: [{ channel_id: 'ch-h', name: 'Hostile' }],
    });
    ({ browser, page } = await openInboxPage(gateway.url));
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });

  it("shows a customer's message that carries the id of one the CRM sent, and that one, each in its chat", async () => {
    const id = await send('7900000001', 'sent by the CRM');
    const inbound = { channel_id: 'ch-h', chat_id: '7900000002', chat_type: 'whatsapp' } as const;
    await gateway.simulate.inbound({ ...inbound, text: 'written by the customer', message_id: id });
    expect(await textsOf('7900000001')).toEqual(['sent by the CRM']);
    expect(await textsOf('7900000002')).toEqual(['written by the customer']);
  });

  it('keeps the messages shown consecutive when a hidden one is edited after a shown one is deleted', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) ids.push(await send('7900000003', `m${i}`));
    expect((await textsOf('7900000003'))[0]).toBe('m10');
    await api('DELETE', `/v2/messages/${ids[59]}`, {});
    await textsOf('7900000003');
    await api('PATCH', `/v2/messages/${ids[4]}`, { text: 'm4 edited' });
    const live = await textsOf('7900000003');
    expect(live).not.toContain('m4 edited');
    expect(live[0]).toBe('m10');
    await page.reload();
    await page.waitForSelector('#live:text("live")');
    expect(await textsOf('7900000003')).toEqual(['m9', ...live]);
  });
});

describe.skipIf(skip)('the inbox page opened on 500 long messages, in a headless browser', () => {
  it('shows every message whole, though its first update comes in many events', async () => {
    const held = await createFakeGateway({
      autoStatuses: false,
      rateLimit: false,
      channels: [{ channel_id: 'ch-long', name: 'Long' }],
    });
    let opened: { browser: Browser; page: Page } | undefined;
    try {
      // 4096 characters each (the whatsapp limit), which JSON writes as 6 bytes each: 12 MiB in all
      const text = (i: number) => `${String(i).padStart(3, '0')}${'\u0001'.repeat(4093)}`;
      for (let i = 0; i < 500; i++) {
        const res = await fetch(`${held.url}/v2/messages`, {
          method: 'POST',
          headers: { authorization: `Bearer ${held.token}` },
          body: JSON.stringify({
            channel_id: 'ch-long',
            recipient: { chat_type: 'whatsapp', chat_id: `7900000${i % 10}` },
            text: text(i),
          }),
        });
        expect(res.status).toBe(200);
      }
      // laying out 2 million characters takes a loaded machine many seconds: generous waits
      opened = await openInboxPage(held.url, async (opening) => opening.setDefaultTimeout(60_000));
      const shown = () => opened?.page.$$eval('.msg .text', (nodes) => nodes.map((n) => n.textContent ?? ''));
      await expect.poll(async () => (await shown())?.length, { timeout: 60_000 }).toBe(500);
      const texts = (await shown()) ?? [];
      expect(texts.map((t) => t.slice(0, 3)).sort()).toEqual(
        Array.from({ length: 500 }, (_, i) => String(i).padStart(3, '0')),
      );
      expect(texts.every((t) => t === text(Number(t.slice(0, 3))))).toBe(true);
      expect(await opened.page.$$eval('.chat .earlier:not([hidden])', (n) => n.length)).toBe(0);
    } finally {
      await opened?.browser.close();
      await held.close();
    }
  }, 180_000);
});
