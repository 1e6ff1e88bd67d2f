// `messaging-gateway send --wait`: the bin's receiver hears the send's statuses from the fake
// gateway (real HTTP both ways) and the exit code says whether the status was reached.
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import { createFakeGateway, type FakeGateway } from '../../src/testing/fake-gateway.js';
import { BIN_RUNS_TIMEOUT_MS, runBin, startBin } from '../support/run-bin.js';

let gateway: FakeGateway;
afterEach(async () => {
  await gateway.close();
});

/** A fake with one telegram channel; the bin's send arguments for it. */
async function setup(options = {}) {
  gateway = await createFakeGateway({ stepMs: 5, ...options });
  const client = new GatewayClient({ baseUrl: gateway.url, token: gateway.token, maxRetries: 0 });
  const [created] = await client.channels.create({ transport: 'whatsapp', credentials: {} });
  const send = (to: string, ...more: string[]) =>
    runBin(
      [
        'send',
        '--channel',
        created?.channel_id as string,
        '--to',
        to,
        '--text',
        'Hi',
        '--listen',
        '0',
        ...more,
      ],
      '',
      { GATEWAY_BASE_URL: gateway.url, GATEWAY_TOKEN: gateway.token },
    );
  return { client, send };
}

describe('send --wait', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  it('exits 0 once the message is read, printing its status, and removes its subscription', async () => {
    const { client, send } = await setup();
    const { code, stdout, stderr } = await send('whatsapp:79001234567', '--wait', 'read');
    expect([code, stderr]).toEqual([0, '']);
    expect(stdout).toMatch(/^sent: request_id \S+.*\nstatus: read\n$/);
    expect(await client.webhooks.list()).toEqual([]);
  });

  it('a failed removal of the subscription is reported, and does not hide the status reached', async () => {
    const { send } = await setup();
    gateway.failNext('DELETE', '/v2/webhooks', { status: 503 });
    const { code, stdout, stderr } = await send('whatsapp:79001234567', '--wait', 'read');
    expect(stdout).toMatch(/^sent: request_id \S+.*\nstatus: read\n$/);
    expect(stderr).toMatch(/could not remove the subscriptions/);
    expect(code).toBe(0);
  });

  it('Ctrl-C (SIGINT) while the service has not answered the send ends the run at once, with or without --wait', async () => {
    const { client } = await setup();
    const [channel] = await client.channels.list();
    for (const more of [[], ['--wait', 'read', '--listen', '0']]) {
      gateway.failNext('POST', '/v2/messages', { status: 503, delayMs: 10_000 });
      const child = startBin(
        [
          'send',
          '--channel',
          channel?.channel_id as string,
          '--to',
          'whatsapp:79001234567',
          '--text',
          'Hi',
          ...more,
        ],
        { GATEWAY_BASE_URL: gateway.url, GATEWAY_TOKEN: gateway.token },
      );
      const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
      const sends = () => gateway.requests.filter((r) => r.method === 'POST' && r.path === '/v2/messages');
      const before = sends().length;
      while (sends().length === before) await new Promise((r) => setTimeout(r, 20));
      child.kill('SIGINT');
      expect(await exit).toBe(1);
      // "at once": the bin ended without the send's answer, which the fake holds back for 10 s
      // (a bin that waited for it would end after the fake answered it 503)
      expect(sends().at(-1)?.status).toBe(0);
      expect(await client.webhooks.list()).toEqual([]);
    }
  });

  it('--json adds the status reached', async () => {
    const { send } = await setup();
    const { code, stdout } = await send('whatsapp:79001234567', '--wait', 'delivered', '--json');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      ok: true,
      status: expect.stringMatching(/^(delivered|read)$/),
    });
  });

  it('exits 1 when the message fails, the reason printed, the request id beside the error', async () => {
    const { send } = await setup();
    const { code, stdout, stderr } = await send('whatsapp:000123', '--wait', 'delivered');
    expect(code).toBe(1);
    const requestId = /^sent: request_id (\S+), chat_id 000123$/m.exec(stdout)?.[1];
    expect(requestId).toBeTruthy();
    expect(stderr).toBe(
      `MessageFailedError: Message ${requestId} failed: bad_contact (request_id ${requestId})\n`,
    );
  });

  it('--json: the request id beside the error when the wait fails; ids and chat_id whole when it succeeds', async () => {
    const { send } = await setup();
    const failed = await send('whatsapp:000123', '--wait', 'delivered', '--json');
    expect(failed.code).toBe(1);
    const doc = JSON.parse(failed.stdout);
    expect(doc).toMatchObject({
      ok: false,
      request_id: expect.any(String),
      error: { class: 'MessageFailedError', reason: 'bad_contact' },
    });
    expect(doc.error.message).toContain(doc.request_id);
    const timedOut = await send(
      'whatsapp:79001234567',
      '--wait',
      'read',
      '--timeout',
      '0.5',
      '--public-url',
      'http://127.0.0.1:9/hooks',
      '--json',
    );
    expect(JSON.parse(timedOut.stdout)).toMatchObject({
      ok: false,
      request_id: expect.any(String),
      error: { class: 'DeliveryTimeoutError' },
    });
    const done = await send('whatsapp:79001234567', '--wait', 'delivered', '--json');
    expect(JSON.parse(done.stdout)).toMatchObject({ ok: true, chat_id: '79001234567' });
  });

  it('says why a message failed outside its conversation window: a wapi chat that never wrote', async () => {
    gateway = await createFakeGateway({ stepMs: 5, channels: [{ channel_id: 'wapi-1', transport: 'wapi' }] });
    const args = ['send', '--channel', 'wapi-1', '--to', 'whatsapp:79001234567', '--text', 'Hi'];
    const env = { GATEWAY_BASE_URL: gateway.url, GATEWAY_TOKEN: gateway.token };
    const { code, stderr } = await runBin([...args, '--wait', 'delivered', '--listen', '0'], '', env);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^MessageFailedError: Message \S+ failed: over_24_hour_limit \(wapi: outside/);
    expect(stderr).toContain('a template opens a conversation');
    expect(stderr).not.toContain('79001234567');
  });

  it('exits 1 when the status does not come within --timeout (the gateway delivers where nothing listens)', async () => {
    const { client, send } = await setup();
    const unreachable = ['--public-url', 'http://127.0.0.1:9/hooks'];
    const { code, stderr } = await send(
      'whatsapp:79001234567',
      '--wait',
      'read',
      '--timeout',
      '0.5',
      ...unreachable,
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(/^DeliveryTimeoutError: Message \S+ did not reach read within 500 ms/);
    expect(await client.webhooks.list()).toEqual([]);
  });

  it('exits 2 on --wait with an unknown status or --listen without --wait', async () => {
    const { send } = await setup();
    expect((await send('whatsapp:79001234567', '--wait', 'seen')).code).toBe(2);
    const noWait = await send('whatsapp:79001234567');
    expect(noWait.code).toBe(2);
    expect(noWait.stderr).toContain('--listen is for --wait');
    // --public-url without --wait would send and ignore it
    const url = await runBin(
      [
        'send',
        '--channel',
        'c',
        '--to',
        'whatsapp:79001234567',
        '--text',
        'Hi',
        '--public-url',
        'https://t.example/hooks',
      ],
      '',
      { GATEWAY_BASE_URL: gateway.url, GATEWAY_TOKEN: gateway.token },
    );
    expect([url.code, url.stdout]).toEqual([2, '']);
    expect(url.stderr).toContain('--public-url is for --wait');
  });

  it('exits 2 on a --timeout no timer can hold (it would end at once, after sending)', async () => {
    const { send } = await setup();
    for (const timeout of ['1e7', 'Infinity']) {
      const run = await send('whatsapp:79001234567', '--wait', 'read', '--timeout', timeout);
      expect([run.code, run.stdout]).toEqual([2, '']);
      expect(run.stderr).toContain('--timeout takes');
    }
  });
});
