// The fake gateway's inbox page in a real headless Chromium (Debian's, driven by playwright-core):
// what the SDK did shows up live, and the page's buttons and boxes act as the customer through
// the fake, up to a real WebhookHandler on 127.0.0.1. Screenshots of each state go to .tmp/.
import { mkdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { GatewayClient } from 'messaging-gateway-sdk';
import { buildWebhook, createFakeGateway, type FakeGateway } from 'messaging-gateway-sdk/testing';
import { createNodeMiddleware, WebhookHandler } from 'messaging-gateway-sdk/webhooks';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURE_REASONS } from '../../src/schemas/reasons.js';
import { MAX_LISTENERS } from '../../src/testing/inbox/live-updates.js';
import { openInboxPage } from '../support/chromium.js';
import { freePort, listen } from '../support/servers.js';
import { PARTS, skipWithout } from '../support/system-parts.js';

// Once per CI run (the Node 24 pass), as the framework tests.
const skip = skipWithout(PARTS.chromium, 'SKIP_FRAMEWORK_TESTS');
const SECRET = 'inbox-secret';
const SHOTS = new URL('../../.tmp/', import.meta.url);
// Set to refresh the README's screenshot: UPDATE_DOCS_SCREENSHOT=1 npx vitest run test/e2e/inbox-browser.test.ts
const DOCS_SHOT = new URL('../../docs/images/inbox.png', import.meta.url);

let browser: Browser;
let page: Page;
let gateway: FakeGateway;
let client: GatewayClient;
let closeReceiver: () => Promise<void>;
let receiverUrl: string;
const received: { kind: string; text?: string; status?: string; reason?: string | null }[] = [];

/** Waits until `received` holds an item matching `match`. */
async function delivered(match: (item: (typeof received)[number]) => boolean) {
  await expect.poll(() => received.some(match), { timeout: 30_000 }).toBe(true);
}

const shot = (name: string) =>
  page.screenshot({ path: new URL(`inbox-${name}.png`, SHOTS).pathname, fullPage: true });

async function send(text: string, chat_id = '79001234567') {
  const { request_id } = await client.messages.send({
    channel_id: 'ch-main',
    recipient: { chat_type: 'whatsapp', chat_id },
    text,
  });
  const message = [...gateway.messages.values()].find((m) => m.request_id === request_id);
  return { request_id, message_id: message?.message_id as string };
}

const bubble = (messageId: string, status?: string) =>
  `[data-message="${messageId}"]${status ? `[data-status="${status}"]` : ''}`;

/** Unfolds a message's status controls (a <details>) as a person would, by its summary. */
async function unfold(messageId: string) {
  if (!(await page.$eval(`${bubble(messageId)} details`, (d) => (d as HTMLDetailsElement).open))) {
    await page.click(`${bubble(messageId)} summary`);
  }
}

describe.skipIf(skip)('the inbox page, in a headless browser', () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    const hooks = new WebhookHandler({ secret: SECRET });
    hooks.on('message.add', (w) => {
      for (const item of w.data) received.push({ kind: 'message.add', text: item.text ?? undefined });
    });
    hooks.on('message.status_update', (w) => {
      for (const { status, reason } of w.data) received.push({ kind: 'status', status, reason });
    });
    const receiver = await listen(createServer(createNodeMiddleware(hooks)));
    closeReceiver = receiver.close;
    receiverUrl = receiver.url;
    gateway = await createFakeGateway({
      autoScan: false,
      autoStatuses: false,
      stepMs: 1,
      channels: [{ channel_id: 'ch-main', name: 'Main number' }],
    });
    client = new GatewayClient({ baseUrl: gateway.url, token: gateway.token, apiKey: gateway.apiKey });
    await client.webhooks.ensure(`${receiverUrl}/hooks?secret=${SECRET}`, [
      'message.add',
      'message.status_update',
    ]);
    ({ browser, page } = await openInboxPage(gateway.url));
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await closeReceiver?.();
  });

  it('shows a message the SDK sent in its chat, its ticks advancing from simulate and from its buttons', async () => {
    const { request_id, message_id } = await send('Your order #1042 is ready');
    await page.waitForSelector(bubble(message_id, 'accepted'));
    expect(await page.textContent(`${bubble(message_id)} .text`)).toBe('Your order #1042 is ready');
    await gateway.simulate.status(request_id, 'sent');
    await page.waitForSelector(bubble(message_id, 'sent'));
    expect(await page.textContent(`${bubble(message_id)} .ticks`)).toBe('✓');
    await shot('sent');

    await unfold(message_id);
    await page.click(`${bubble(message_id)} button:text-is("Delivered")`);
    await page.waitForSelector(bubble(message_id, 'delivered'));
    expect(await page.textContent(`${bubble(message_id)} .ticks`)).toBe('✓✓');
    await delivered((r) => r.kind === 'status' && r.status === 'delivered');

    await page.click(`${bubble(message_id)} button:text-is("Read")`);
    await page.waitForSelector(bubble(message_id, 'read'));
    await delivered((r) => r.kind === 'status' && r.status === 'read');
    const color = await page.$eval(`${bubble(message_id)} .ticks`, (e) => getComputedStyle(e).color);
    expect(color).toBe('rgb(10, 102, 194)'); // read: blue ticks
    await shot('read');
  });

  it('fails a message with the reason chosen on the page, which the receiver gets', async () => {
    const { request_id, message_id } = await send('A second message', '79001112233');
    await gateway.simulate.status(request_id, 'delivered');
    await page.waitForSelector(bubble(message_id, 'delivered'));
    // the controls are made when first unfolded; then every reason of the spec is offered
    await unfold(message_id);
    const offered = await page.$$eval(`${bubble(message_id)} select[name="reason"] option`, (o) =>
      o.map((option) => (option as HTMLOptionElement).value),
    );
    expect(offered).toEqual([...FAILURE_REASONS]);
    await page.selectOption(`${bubble(message_id)} select[name="reason"]`, 'chat_is_blocked');
    await page.click(`${bubble(message_id)} button:text-is("Failed")`);
    await page.waitForSelector(bubble(message_id, 'failed'));
    expect(await page.textContent(`${bubble(message_id)} .state`)).toBe('failed: chat_is_blocked');
    await delivered((r) => r.status === 'failed' && r.reason === 'chat_is_blocked');
    await shot('failed');
  });

  it("delivers what is typed as the customer (keyboard only) to the CRM's handler as message.add", async () => {
    const chat = '[data-chat="79001234567"]';
    // the box is folded behind its button; pressing it opens the box with the keyboard in it
    expect(await page.isVisible(`${chat} textarea`)).toBe(false);
    expect(await page.getAttribute(`${chat} button.write`, 'aria-expanded')).toBe('false');
    await page.focus(`${chat} button.write`);
    await page.keyboard.press('Enter');
    expect(await page.getAttribute(`${chat} button.write`, 'aria-expanded')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('TEXTAREA');
    await page.keyboard.type('Thanks, I will pick it up at 5');
    await page.keyboard.press('Tab'); // to "Send as the customer"
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Send as the customer');
    await page.keyboard.press('Enter');
    await delivered((r) => r.kind === 'message.add' && r.text === 'Thanks, I will pick it up at 5');
    await page.waitForSelector(`${chat} .msg.in .text:text-is("Thanks, I will pick it up at 5")`);
    expect(await page.inputValue(`${chat} textarea`)).toBe('');
    expect(await page.isVisible(`${chat} textarea`)).toBe(true); // stays open for the next message
    await shot('customer');
    await page.click(`${chat} button.write`);
    expect(await page.isVisible(`${chat} textarea`)).toBe(false);
  });

  it('moves the focus from a status button pressed from the keyboard to the next step, Read', async () => {
    const { request_id, message_id } = await send('Focus stays here', '79004445566');
    await gateway.simulate.status(request_id, 'sent');
    await page.waitForSelector(bubble(message_id, 'sent'));
    await page.focus(`${bubble(message_id)} summary`);
    await page.keyboard.press('Enter'); // unfolds the controls
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Delivered');
    await page.keyboard.press('Enter');
    await page.waitForSelector(bubble(message_id, 'delivered'));
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Read');
  });

  it('offers no control that would move a status backwards: none once a message is read', async () => {
    const { request_id, message_id } = await send('Already read', '79007778899');
    await gateway.simulate.status(request_id, 'delivered');
    await page.waitForSelector(bubble(message_id, 'delivered'));
    await unfold(message_id);
    expect(await page.isVisible(`${bubble(message_id)} button:text-is("Delivered")`)).toBe(false);
    expect(await page.isVisible(`${bubble(message_id)} button:text-is("Read")`)).toBe(true);
    await gateway.simulate.status(request_id, 'read');
    await page.waitForSelector(bubble(message_id, 'read'));
    expect(await page.isVisible(`${bubble(message_id)} details`)).toBe(false);
  });

  it('stays short at 390 px: each outbound message folds its controls into one line', async () => {
    for (let i = 0; i < 12; i++) await send(`Order update ${i}`, '79001230000');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForSelector('.msg .text:text-is("Order update 11")');
    const heights = await page.$$eval('[data-chat="79001230000"] .msg.out', (all) =>
      all.map((e) => e.getBoundingClientRect().height),
    );
    expect(Math.max(...heights)).toBeLessThan(90);
    const tall = await page.evaluate(() => document.querySelector('[data-chat="79001230000"]')?.scrollHeight);
    console.log(`inbox at 390 px: a chat of 12 outbound messages is ${tall} px tall`);
    await shot('390');
    await page.setViewportSize({ width: 1100, height: 800 });
  });

  it('shows two chats whose channel and chat ids join to the same text as two, each once', async () => {
    await gateway.simulate.inbound({ channel_id: 'ch x', chat_id: '1', text: 'first chat' });
    await gateway.simulate.inbound({ channel_id: 'ch', chat_id: 'x 1', text: 'second chat' });
    await page.waitForSelector('.msg.in .text:text-is("second chat")');
    await gateway.simulate.inbound({ channel_id: 'ch', chat_id: 'x 1', text: 'a change' });
    await page.waitForSelector('.msg.in .text:text-is("a change")');
    const texts = await page.$$eval('#chats .msg.in .text', (all) => all.map((e) => e.textContent));
    expect(texts.filter((t) => t === 'first chat')).toHaveLength(1);
    expect(texts.filter((t) => t === 'second chat')).toHaveLength(1);
  });

  it("shows each chat's conversation window: a wapi chat closed until the customer writes, then open for 23 h", async () => {
    const [wapi] = await client.channels.create({ transport: 'wapi', credentials: {} });
    await gateway.simulate.scan(wapi?.channel_id as string); // the wapi link opened
    const template = { id: '6d0f3e1a-2b4c-4d5e-8f70-9a1b2c3d4e5f', values: ['1042'] };
    await client.messages.send({
      channel_id: wapi?.channel_id as string,
      recipient: { chat_type: 'whatsapp', chat_id: '79007770000' },
      template,
    });
    const chat = '[data-chat="79007770000"]';
    await page.waitForSelector(
      `${chat} .window[data-open="false"] .window-state:text-is("closed: send a template")`,
    );
    await shot('window-closed');
    await page.click(`${chat} button.write`);
    await page.fill(`${chat} textarea`, 'Yes, ship it');
    await page.click(`${chat} button:text-is("Send as the customer")`);
    await page.waitForSelector(`${chat} .window[data-open="true"] .window-state:text-is("open for 23 h")`);
    await delivered((r) => r.kind === 'message.add' && r.text === 'Yes, ship it');
    await shot('window-open');

    const [instagram] = await client.channels.create({
      transport: 'instAPI',
      credentials: { username: 'shop', page_id: '1', inst_id: '2', user_token: 'token' },
    });
    await gateway.simulate.scan(instagram?.channel_id as string);
    const day = 24 * 3_600_000;
    await gateway.simulate.inbound({
      channel_id: instagram?.channel_id as string,
      chat_id: 'shop.customer',
      chat_type: 'instagram',
      text: 'Hello',
      timestamp: Date.now() - day,
    });
    await page.waitForSelector('[data-chat="shop.customer"] .window-state:text-is("open for 5 days")');
    expect(await page.isVisible('[data-chat="79001234567"] .window')).toBe(false); // a whatsapp chat has none
  });

  it('shows the QR of a channel being connected; Scan makes it active', async () => {
    const [created] = await client.channels.create({ transport: 'whatsapp', credentials: {} });
    const card = `[data-channel="${created?.channel_id}"]`;
    await page.waitForSelector(`${card} .qr img[src^="data:image/png;base64,"]`);
    await shot('qr');
    if (process.env.UPDATE_DOCS_SCREENSHOT === '1') {
      await page.setViewportSize({ width: 900, height: 800 });
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: DOCS_SHOT.pathname });
      await page.setViewportSize({ width: 1100, height: 800 });
      expect(statSync(DOCS_SHOT).size).toBeLessThan(150 * 1024);
    }
    await page.click(`${card} button:text-is("Scan")`);
    await page.waitForSelector(`${card}[data-status="active"]`);
    expect(gateway.channels.get(created?.channel_id as string)?.status).toBe('active');
    expect(await page.isVisible(`${card} .qr`)).toBe(false);
    await shot('active');
  });

  it('keeps the keyboard in the channel card when Scan hides its QR', async () => {
    const [created] = await client.channels.create({ transport: 'whatsapp', credentials: {} });
    const card = `[data-channel="${created?.channel_id}"]`;
    await page.waitForSelector(`${card} .qr img`);
    await page.focus(`${card} button:text-is("Scan")`);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`${card}[data-status="active"]`);
    await expect
      .poll(() => page.$eval(card, (e) => e.contains(document.activeElement)), { timeout: 30_000 })
      .toBe(true);
  });

  it('scans with a 2FA password: the channel waits for the CRM to send it, then goes active', async () => {
    const [created] = await client.channels.create({ transport: 'whatsapp', credentials: {} });
    const id = created?.channel_id as string;
    const card = `[data-channel="${id}"]`;
    await page.waitForSelector(`${card} .qr img`);
    await page.fill(`${card} input[type="password"]`, 'cloud-pass');
    await page.click(`${card} button:text-is("Scan with this 2FA password")`);
    await page.waitForSelector(`${card} .badge:text("waiting for the CRM to send the 2FA password")`);
    await shot('2fa');
    await expect(
      client.channels.submit2fa(id, { two_factor_code: 'wrong', transport: 'whatsapp' }),
    ).rejects.toThrow();
    await client.channels.submit2fa(id, { two_factor_code: 'cloud-pass', transport: 'whatsapp' });
    await page.waitForSelector(`${card}[data-status="active"]`);
  });

  it('scans from a foreign phone: the channel goes disabled / foreignphone', async () => {
    const [created] = await client.channels.create({ transport: 'whatsapp', credentials: {} });
    const card = `[data-channel="${created?.channel_id}"]`;
    await page.waitForSelector(`${card} .qr img`);
    await page.click(`${card} button:text-is("Scan from a foreign phone")`);
    await page.waitForSelector(`${card} .badge:text("disabled: foreignphone")`);
  });

  it('renders a hostile message text as text, in the chat and from the customer', async () => {
    const hostile = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
    const { message_id } = await send(hostile, '79005550000');
    await page.waitForSelector(bubble(message_id));
    await gateway.simulate.inbound({ channel_id: 'ch-main', chat_id: '79005550000', text: hostile });
    await page.waitForSelector('[data-chat="79005550000"] .msg.in');
    expect(await page.textContent(`${bubble(message_id)} .text`)).toBe(hostile);
    expect(await page.textContent('[data-chat="79005550000"] .msg.in .text')).toBe(hostile);
    expect(await page.$$('.msg img, .msg script')).toHaveLength(0);
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    await shot('hostile');
  });

  it('lists the subscriptions (secrets masked) and the log of requests and deliveries with their answers', async () => {
    const switches = { messagesAndStatuses: false, contactsAndDealsCreation: false, channelsUpdates: false };
    await client.v3.webhooks.update({
      webhooksUri: `${receiverUrl}/hooks?secret=${SECRET}`,
      subscriptions: { ...switches, templateStatus: true },
    });
    await page.waitForSelector('#v3:text("templateStatus")');
    expect(await page.textContent('#v3')).toMatch(
      /^v3 → http:\/\/127\.0\.0\.1:\d+\/hooks\?secret=… \(templateStatus\)$/,
    );
    await page.waitForSelector('#subscriptions li:text("message.add")');
    const subscriptions = await page.textContent('#subscriptions');
    expect(subscriptions).toContain('?secret=…');
    expect(subscriptions).not.toContain(SECRET);
    await page.waitForSelector('#requests li:text("POST /v2/messages → 200")');
    // each delivery says what it carried: the status and the start of its message's text
    const line = '#deliveries li:has-text(\'message.status_update delivered · "Your order #1042…" → 200\')';
    await page.waitForSelector(line);
    await page.click(`${line} summary`);
    await page.waitForSelector(`${line} pre`);
    const detail = (await page.textContent(`${line} .detail`)) ?? '';
    expect(detail).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/hooks\?secret=…/);
    expect(detail).toContain('"event": "message.status_update"'); // opened, the body is whole
    expect(detail).toContain('"status": "delivered"');
    expect(detail).not.toContain(SECRET);
    expect(await page.textContent(`${line} .detail pre:nth-of-type(2)`)).toMatch(/^200/);
    await shot('log-line');
    expect(await page.textContent('body')).not.toContain(gateway.token);
  });

  it("shows the CRM's reply to a contact request and the fake's verdict on it", async () => {
    const crm = await listen((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"name":"Alice"}'));
    });
    try {
      await client.webhooks.subscribe([
        { url: `${crm.url}/crm?secret=${SECRET}`, event: 'crm_entities.contact_add' },
      ]);
      await gateway.simulate.deliver(buildWebhook('crm_entities.contact_add', { data: [{ name: 'Alice' }] }));
      const line =
        '#deliveries li:has-text(\'crm_entities.contact_add "Alice" → 200 · reply wrong: id: a non-empty string is required\')';
      await page.waitForSelector(line);
      expect(await page.$eval(`${line} .reply`, (e) => getComputedStyle(e).color)).toBe('rgb(180, 35, 24)');
      await page.click(`${line} summary`);
      await page.waitForSelector(`${line} .detail p.reply`);
      expect(await page.textContent(`${line} .detail`)).toContain('{"name":"Alice"}');
      expect(await page.textContent(`${line} .detail p.reply`)).toBe(
        'The reply is not what the spec asks for: id: a non-empty string is required',
      );
      await shot('crm-reply');
    } finally {
      await crm.close();
    }
  });

  it('logs why a delivery got no answer, in words', async () => {
    // nothing listens there: the connection is refused at once (the fake's bounds on a receiver
    // that never answers are in fake-gateway-slow-receiver.test.ts; the page shows each reason so)
    const nowhere = `http://127.0.0.1:${await freePort()}/x`;
    await client.webhooks.subscribe([{ url: nowhere, event: 'channel.waba_tier_update' }]);
    const [record] = await gateway.simulate.deliver(buildWebhook('channel.waba_tier_update'));
    expect(record).toMatchObject({ status: 0, failure: 'connection' });
    await page.waitForSelector(
      '#deliveries li:has-text("channel.waba_tier_update TIER_1K") .code.bad:text("no answer: the connection was refused or reset")',
    );
  });

  it('reads in one column at 360 px, without scrolling sideways', async () => {
    await page.setViewportSize({ width: 360, height: 800 });
    const wider = await page.evaluate(() =>
      [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
        .map((e) => `${e.tagName.toLowerCase()}.${e.className}`),
    );
    expect(wider, 'elements wider than the page').toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    const columns = await page.$eval(
      'main',
      (e) => getComputedStyle(e).gridTemplateColumns.split(' ').length,
    );
    expect(columns).toBe(1);
    await shot('360');
  });

  it(`stops, and says so, when ${MAX_LISTENERS} newer pages take its place (no reconnecting to push one out)`, async () => {
    const token = await page.$eval('meta[name="inbox-token"]', (e) => (e as HTMLMetaElement).content);
    const others: AbortController[] = [];
    try {
      for (let i = 0; i < MAX_LISTENERS; i++) {
        const abort = new AbortController();
        others.push(abort);
        await fetch(`${gateway.url}/_inbox/events?t=${token}`, { signal: abort.signal });
      }
      await page.waitForSelector('#live:text("another inbox page")');
      // EventSource reconnects after about 3 s; the page must not come back and close another
      await page.waitForTimeout(4000);
      expect(await page.textContent('#live')).toContain('another inbox page');
    } finally {
      for (const abort of others) abort.abort();
    }
  });
});
