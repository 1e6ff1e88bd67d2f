import { describe, expectTypeOf, it } from 'vitest';
import type { GatewayClient } from '../../src/client.js';
import {
  buildWebhook,
  createFakeGateway,
  type DeliveryFailure,
  type ReplyVerdict,
} from '../../src/testing.js';

describe('messaging-gateway-sdk/testing types', () => {
  it('buildWebhook returns the wire body of its kind', () => {
    expectTypeOf(buildWebhook('message.add').data[0]?.direction).toEqualTypeOf<
      'inbound' | 'outbound' | (string & {}) | undefined
    >();
    expectTypeOf(buildWebhook('v3.createContact').createContact.name).toEqualTypeOf<
      string | null | undefined
    >();
    expectTypeOf(buildWebhook('v3.test')).toEqualTypeOf<{ test: true }>();
  });

  it('refuses an unknown kind and a misspelled override', () => {
    // @ts-expect-error not a kind
    buildWebhook('message.nope');
    // @ts-expect-error a v2 body has no `messages`
    buildWebhook('message.add', { messages: [] });
    // @ts-expect-error `timestamp` is a number
    buildWebhook('message.add', { data: [{ timestamp: 'soon' }] });
  });

  it('gives what a GatewayClient needs', async () => {
    const gateway = await createFakeGateway();
    expectTypeOf(gateway.url).toEqualTypeOf<string>();
    expectTypeOf({ baseUrl: gateway.url, token: gateway.token }).toExtend<
      ConstructorParameters<typeof GatewayClient>[0]
    >();
    await gateway.close();
  });

  it("types a delivery's answer, its failure and the verdict on a CRM reply", async () => {
    const gateway = await createFakeGateway();
    const [record] = await gateway.simulate.deliver(buildWebhook('crm_entities.contact_add'));
    expectTypeOf(record?.failure).toEqualTypeOf<DeliveryFailure | undefined>();
    expectTypeOf(record?.reply).toEqualTypeOf<ReplyVerdict | undefined>();
    expectTypeOf(record?.answer).toEqualTypeOf<string | undefined>();
    // @ts-expect-error not a failure the fake reports
    const wrong: DeliveryFailure = 'refused';
    void wrong;
    await gateway.close();
  });
});
