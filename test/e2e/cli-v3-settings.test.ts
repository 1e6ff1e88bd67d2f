// The v3 settings against the spec: PATCH /v3/webhooks with two or three switches, as public
// integrations send it; `v3 set --switch` sends only the switches named. Real HTTP to the fake.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { GatewayClient, V3_TEST_POST_FAILED, type V3WebhookSettingsParams } from '../../src/index.js';
import { createFakeGateway, type FakeGateway } from '../../src/testing/fake-gateway.js';
import { parseV3Webhook } from '../../src/webhooks/decode/parse.js';
import { BIN_RUNS_TIMEOUT_MS, runBin } from '../support/run-bin.js';
import { listen } from '../support/servers.js';

let gateway: FakeGateway;
let receiver: { url: string; close: () => Promise<void> };
beforeAll(async () => {
  gateway = await createFakeGateway();
  receiver = await listen((_req, res) => res.writeHead(200).end());
});
afterAll(async () => {
  await receiver.close();
  await gateway.close();
});

const patches = () =>
  gateway.requests.filter((r) => r.method === 'PATCH' && r.path === '/v3/webhooks').map((r) => r.body);

describe('v3.webhooks.update with some of the four switches', () => {
  it('sends two switches as given; the service keeps the others', async () => {
    const client = new GatewayClient({ baseUrl: gateway.url, apiKey: gateway.apiKey });
    const all = {
      messagesAndStatuses: true,
      contactsAndDealsCreation: true,
      channelsUpdates: true,
      templateStatus: true,
    };
    await client.v3.webhooks.update({ webhooksUri: `${receiver.url}/v3`, subscriptions: all });
    const two: V3WebhookSettingsParams = {
      webhooksUri: `${receiver.url}/v3`,
      subscriptions: { messagesAndStatuses: false, templateStatus: false },
    };
    await client.v3.webhooks.update(two);
    expect(patches().at(-1)).toEqual(two);
    expect((await client.v3.webhooks.get()).subscriptions).toEqual({
      messagesAndStatuses: false,
      contactsAndDealsCreation: true,
      channelsUpdates: true,
      templateStatus: false,
    });
  });

  it('still refuses a switch that is not a boolean', async () => {
    const client = new GatewayClient({ baseUrl: gateway.url, apiKey: gateway.apiKey });
    const bad = { webhooksUri: `${receiver.url}/v3`, subscriptions: { channelsUpdates: 'yes' as never } };
    await expect(client.v3.webhooks.update(bad)).rejects.toMatchObject({
      name: 'GatewayValidationError',
      issues: [expect.objectContaining({ path: ['subscriptions', 'channelsUpdates'] })],
    });
  });
});

describe('v3 set --switch', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  it('sends only the switches named, and prints those', async () => {
    const env = { GATEWAY_BASE_URL: gateway.url, GATEWAY_API_KEY: gateway.apiKey };
    const run = await runBin(
      ['v3', 'set', '--uri', `${receiver.url}/v3?secret=s3cret`, '--switch', 'channelsUpdates=false'],
      undefined,
      env,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(patches().at(-1)).toEqual({
      webhooksUri: `${receiver.url}/v3?secret=s3cret`,
      subscriptions: { channelsUpdates: false },
    });
    expect(run.stdout).toBe(`webhooksUri: ${receiver.url}/v3?secret=…\nchannelsUpdates: false\n`);
  });
});

describe('the client against the spec', () => {
  it("exports the failed test POST's error text", () => {
    expect(V3_TEST_POST_FAILED).toBe('Webhooks request not valid. Response status must be 200.');
  });

  it('types instPost by the fields the spec lists', () => {
    const body = readFileSync('test/fixtures/v3/messages--instagram-comment-with-inst-post.json', 'utf8');
    const webhook = parseV3Webhook(body);
    if (webhook.type !== 'messagesAndStatuses') throw new Error(webhook.type);
    const post = webhook.messages[0]?.instPost;
    expect(post).toMatchObject({ id: '1789', src: 'https://inst.example/p/1789', likes: 10, comments: 2 });
    expectTypeOf(post?.likes).toEqualTypeOf<number | null | undefined>();
    expectTypeOf(post?.authorName).toEqualTypeOf<string | null | undefined>();
  });
});
