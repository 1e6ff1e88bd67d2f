// The bin's commands for the real service, spawned against the fake gateway: text and --json
// outputs (ids and ports masked) as golden files, exit codes, and credentials never printed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { GatewayClient } from '../../src/client.js';
import { createFakeGateway, type FakeGateway } from '../../src/testing/fake-gateway.js';
import { BIN_RUNS_TIMEOUT_MS, type BinRun, runBin } from '../support/run-bin.js';
import { listen } from '../support/servers.js';

let gateway: FakeGateway;
let env: NodeJS.ProcessEnv;
let channelId: string;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  gateway = await createFakeGateway();
  closers.push(() => gateway.close());
  env = { GATEWAY_BASE_URL: gateway.url, GATEWAY_TOKEN: gateway.token, GATEWAY_API_KEY: gateway.apiKey };
  const client = new GatewayClient({ baseUrl: gateway.url, token: gateway.token, apiKey: gateway.apiKey });
  const [created] = await client.channels.create({
    transport: 'telegram',
    credentials: { telegram_token: 'bot-token-1' },
  });
  channelId = created?.channel_id as string;
  // A receiver that answers the v3 test POST, for `v3 set`.
  const receiver = await listen((_req, res) => res.writeHead(200).end());
  closers.push(receiver.close);
  env.RECEIVER = receiver.url;
});
afterAll(async () => {
  while (closers.length) await closers.pop()?.();
});

/** Ids, ports and request ids replaced by stable names. */
function masked(text: string): string {
  return text
    .replaceAll(channelId, '<channel>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>');
}

const bin = (args: string[], extra: NodeJS.ProcessEnv = {}): Promise<BinRun> =>
  runBin(args, undefined, { ...env, ...extra });

/** Runs a command as text and as --json; both outputs go to one golden file. */
async function golden(name: string, args: string[]): Promise<void> {
  const text = await bin(args);
  const json = await bin([...args, '--json']);
  expect([text.code, json.code, text.stderr, json.stderr]).toEqual([0, 0, '', '']);
  JSON.parse(json.stdout); // one JSON document
  await expect(masked(`$ ${args.join(' ')}\n${text.stdout}$ … --json\n${json.stdout}`)).toMatchFileSnapshot(
    `../golden/cli-${name}.txt`,
  );
}

describe('messaging-gateway against the fake gateway', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  it('--version prints the package version', async () => {
    const { code, stdout } = await bin(['--version']);
    expect([code, stdout.trim()]).toEqual([0, pkg.version]);
  });

  it('channels list and get (golden)', async () => {
    await golden('channels-list', ['channels', 'list']);
    await golden('channels-get', ['channels', 'get', channelId]);
  });

  it('send (golden); a recipient the SDK refuses prints GatewayValidationError naming the field, exit 2', async () => {
    await golden('send', ['send', '--channel', channelId, '--to', 'telegram:@customer', '--text', 'Hello']);
    const refused = await bin(['send', '--channel', channelId, '--to', 'fax:79001234567', '--text', 'Hi']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^GatewayValidationError: .*chat_type/m);
  });

  it('send: --json prints the chat_id whole; text shows a phone by its last 4 digits, as the bin shows every phone', async () => {
    const args = ['send', '--channel', channelId, '--to', 'whatsapp:79001234567', '--text', 'Hi'];
    const text = await bin(args);
    const json = await bin([...args, '--json']);
    expect([text.code, json.code]).toEqual([0, 0]);
    expect(text.stdout).toMatch(/^sent: request_id [0-9a-f-]{36}, chat_id …4567$/m);
    expect(text.stdout).not.toContain('79001234567');
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, chat_id: '79001234567' });
  });

  it('webhooks ensure, list and remove (golden); the URL query is never printed in text', async () => {
    const url = `${env.RECEIVER}/hooks?secret=s3cret`;
    await golden('webhooks-ensure', [
      'webhooks',
      'ensure',
      url,
      '--events',
      'message.add,message.status_update',
    ]);
    await golden('webhooks-list', ['webhooks', 'list']);
    const ids = JSON.parse((await bin(['webhooks', 'list', '--json'])).stdout).map(
      (s: { id: string }) => s.id,
    );
    const removed = await bin(['webhooks', 'remove', ...ids]);
    expect(removed.code).toBe(0);
    expect((await bin(['webhooks', 'list'])).stdout).toBe('no subscriptions\n');
    expect((await bin(['webhooks', 'list'])).stdout).not.toContain('s3cret');
  });

  it('v3 set and get (golden); a set the address refuses exits 1 with BadRequestError', async () => {
    await golden('v3-set', [
      'v3',
      'set',
      '--uri',
      `${env.RECEIVER}/v3`,
      '--switch',
      'messagesAndStatuses=true',
    ]);
    await golden('v3-get', ['v3', 'get']);
    const refused = await bin(['v3', 'set', '--uri', 'http://127.0.0.1:9/nothing-here']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^BadRequestError: /);
  });

  it('channels delete (golden), then get exits 1 with NotFoundError', async () => {
    const client = new GatewayClient({ baseUrl: gateway.url, token: gateway.token });
    const [other] = await client.channels.create({ transport: 'whatsapp', credentials: {} });
    const id = other?.channel_id as string;
    const text = await bin(['channels', 'delete', id]);
    expect([text.code, masked(text.stdout)]).toEqual([0, 'deleted channel <id>\n']);
    const gone = await bin(['channels', 'get', id, '--json']);
    expect(gone.code).toBe(1);
    expect(JSON.parse(gone.stdout)).toMatchObject({
      ok: false,
      error: { class: 'NotFoundError', status: 404 },
    });
  });

  it('a 401 prints AuthenticationError without the token, exit 1, as text and as JSON', async () => {
    const token = 'wrong-token-0123456789';
    for (const json of [false, true]) {
      const run = await bin(['channels', 'list', ...(json ? ['--json'] : [])], { GATEWAY_TOKEN: token });
      expect(run.code).toBe(1);
      expect(run.stdout + run.stderr).not.toContain(token);
      expect(run.stdout + run.stderr).toContain('AuthenticationError');
    }
    const flag = await bin(['channels', 'list', '--token', token], { GATEWAY_TOKEN: '' });
    expect([flag.code, flag.stderr.includes(token)]).toEqual([1, false]);
  });

  it('a usage error exits 2 and points at --help; every command has --help', async () => {
    for (const args of [
      ['send', '--to', 'x'],
      ['channels', 'nope'],
      ['webhooks', 'ensure', 'http://x/'],
      ['v3', 'set'],
      ['v3', 'get', '--bogus'],
    ]) {
      const run = await bin(args);
      expect(run.code, args.join(' ')).toBe(2);
      // the help of the command, or of the command and its subcommand (`webhooks ensure --help`)
      expect(run.stderr).toMatch(new RegExp(`see \`messaging-gateway ${args[0]}( ${args[1]})? --help\``));
    }
    for (const command of ['send', 'channels', 'webhooks', 'v3']) {
      const help = await bin([command, '--help']);
      expect([help.code, help.stdout.startsWith(`Usage: messaging-gateway ${command}`)]).toEqual([0, true]);
    }
  });
});
