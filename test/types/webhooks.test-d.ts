import { describe, expectTypeOf, it } from 'vitest';
import {
  API_ERROR_CODES,
  type ApiErrorCode,
  type FailureReason,
  type GatewayApiError,
  type KnownApiErrorCode,
  type MessageAdd,
  type MessageFailedError,
  type MessageFailureReason,
  type MessageStatusUpdate,
  type RejectedItem,
  type V3Message,
  type Webhook,
} from '../../src/index.js';

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
      expectTypeOf(webhook.meta.idempotency_key).toEqualTypeOf<string | null | undefined>();
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

describe('types that catch mistakes', () => {
  it('has no index signature: a typo in a field name does not compile', () => {
    if (webhook.api === 'v2' && webhook.event === 'message.add') {
      const m = webhook.data[0]!;
      expectTypeOf(m.text).toEqualTypeOf<string | null | undefined>();
      // @ts-expect-error `txet` is not a field of MessageAdd
      m.txet;
      // @ts-expect-error nor is `reciepient`
      m.reciepient;
    }
    if (webhook.api === 'v2' && webhook.event === 'message.status_update') {
      // @ts-expect-error `stauts` is not a field of MessageStatusUpdate
      webhook.data[0]!.stauts;
    }
  });

  it('types meta from the spec', () => {
    if (webhook.api === 'v2') {
      // Both may be missing from a real delivery.
      expectTypeOf(webhook.meta.timestamp).toEqualTypeOf<number | null | undefined>();
      expectTypeOf(webhook.meta.idempotency_key).toEqualTypeOf<string | null | undefined>();
    }
  });

  it('marks descriptive fields optional and identity required', () => {
    if (webhook.api === 'v2' && webhook.event === 'message.add') {
      expectTypeOf(webhook.data[0]!.message_id).toEqualTypeOf<string>();
      expectTypeOf(webhook.data[0]!.recipient.chat_type).toExtend<string>();
      expectTypeOf(webhook.data[0]!.status).toExtend<string | null | undefined>();
    }
  });

  it('carries rejected items on every decoded webhook', () => {
    expectTypeOf(webhook.rejected).toEqualTypeOf<RejectedItem[]>();
  });

  it('decodes unknown v3 kinds to a member of their own', () => {
    if (webhook.api === 'v3' && webhook.type === 'unknown') {
      expectTypeOf(webhook.unknownKinds).toEqualTypeOf<string[]>();
      // @ts-expect-error an unknown v3 delivery has no messages
      webhook.messages;
    }
  });

  it('checks a switch over the failure reasons', () => {
    const describeReason = (reason: FailureReason): string => {
      switch (reason) {
        case 'bad_contact':
        case 'network_error':
          return 'retry later or fix the number';
        // @ts-expect-error a misspelled reason is not a failure reason
        case 'bad_contakt':
          return '';
        default:
          return reason.startsWith('waba_rejected_by_') ? 'marketing refused' : reason;
      }
    };
    expectTypeOf(describeReason).parameter(0).toEqualTypeOf<FailureReason>();
    expectTypeOf<'waba_rejected_by_marketing'>().toExtend<FailureReason>();
    expectTypeOf<'messages_invalid_chat'>().toExtend<FailureReason>();
    // @ts-expect-error a reason the spec does not list is not a FailureReason
    const wrong: FailureReason = 'not_a_reason';
    void wrong;
    if (webhook.api === 'v2' && webhook.event === 'message.status_update') {
      expectTypeOf(webhook.data[0]!.reason).toEqualTypeOf<MessageFailureReason | null | undefined>();
    }
  });

  it('types MessageFailedError.reason and GatewayApiError.code from the spec', () => {
    expectTypeOf<MessageFailedError['reason']>().toEqualTypeOf<MessageFailureReason | null>();
    expectTypeOf<GatewayApiError['code']>().toEqualTypeOf<ApiErrorCode | undefined>();
    expectTypeOf<'uriNotValid'>().toExtend<KnownApiErrorCode>();
    expectTypeOf(API_ERROR_CODES).toEqualTypeOf<
      readonly ['uriNotValid', 'testPostNotPassed', 'TOO_MACH_ENTITIES']
    >();
  });
});
