import { describe, expectTypeOf, it } from 'vitest';
import type { MessageAdd, MessageStatusUpdate, V3Message, Webhook } from '../../src/webhooks.js';

declare const webhook: Webhook;

describe('types of decoded webhooks', () => {
  it('narrows by api, then by event or type', () => {
    if (webhook.api === 'v2') {
      switch (webhook.event) {
        case 'message.add':
          expectTypeOf(webhook.data).toEqualTypeOf<MessageAdd[]>();
          expectTypeOf(webhook.data[0]!.text).toEqualTypeOf<string | null | undefined>();
          break;
        case 'message.status_update':
          expectTypeOf(webhook.data).toEqualTypeOf<MessageStatusUpdate[]>();
          break;
        case 'unknown':
          expectTypeOf(webhook.unknownEvent).toBeString();
          expectTypeOf(webhook.data).toEqualTypeOf<unknown[]>();
          break;
      }
      expectTypeOf(webhook.meta.idempotency_key).toBeString();
    } else {
      switch (webhook.type) {
        case 'messagesAndStatuses':
          expectTypeOf(webhook.messages).toEqualTypeOf<V3Message[]>();
          break;
        case 'test':
          expectTypeOf(webhook.test).toEqualTypeOf<true>();
          break;
      }
    }
  });

  it('an unknown event can never be mistaken for a known kind', () => {
    if (webhook.api === 'v2' && webhook.event === 'message.add') {
      // @ts-expect-error the unknown member is not part of this branch
      webhook.unknownEvent;
    }
  });
});
