import type { GatewayPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/options.js';
import {
  type EditMessageParams,
  editMessageParams,
  type MessageRef,
  type MessagesDumpParams,
  messageRef,
  messagesDumpParams,
  type SendMessageParams,
  type SendMessageResult,
  sendMessageParams,
  sendMessageResult,
} from '../schemas/messages.js';
import { Resource, segment } from './resource.js';
import { runPool, type SendManyOptions, type SendManyResult } from './send-many.js';

/** `client.messages`: send, edit, delete and export messages (spec: Endpoints → Messages). */
export class Messages extends Resource {
  /**
   * Sends a message (POST /v2/messages). Resolves when the service accepted it: the outcome
   * arrives later as message.status_update (see DeliveryTracker). A POST is never repeated after
   * a 5xx or a time-out, so a message is never sent twice by the SDK.
   * @example
   * ```ts
   * const { request_id } = await client.messages.send({
   *   channel_id, recipient: { chat_type: 'whatsapp', chat_id: '79001234567' }, text: 'Hello',
   * });
   * ```
   */
  send(params: SendMessageParams, options?: RequestOptions): GatewayPromise<SendMessageResult> {
    return this.promise(async () => {
      this.check(sendMessageParams, params, 'message');
      // Outside its conversation window the send is refused here; a wapi conversation it starts
      // is handed back through `started` when the send fails.
      const started = await this.core.windows?.beforeSend(params);
      const destination = { chatType: params.recipient?.chat_type, channelId: params.channel_id };
      const spec = {
        surface: 'v2',
        method: 'POST',
        path: '/v2/messages',
        body: params,
        destination,
      } as const;
      const sent = this.request(spec, options, (data) => this.read(sendMessageResult, data));
      if (!started) return sent;
      return sent.catch((error: unknown) => {
        started(error);
        throw error;
      });
    });
  }

  /**
   * Sends many messages, `concurrency` at a time, through the client's rate limiter. Never
   * rejects for one item: one `{ ok, value | error }` per item, in input order. An abort stops
   * the items not yet started; they report the abort error. Rejects only when `concurrency` is
   * not a whole number >= 1 (a `GatewayValidationError` naming it), before anything is sent.
   */
  sendMany(items: readonly SendMessageParams[], options: SendManyOptions = {}): Promise<SendManyResult[]> {
    const url = this.core.urlOf({ surface: 'v2', method: 'POST', path: '/v2/messages' });
    return runPool(items, (item, signal) => this.send(item, { signal }), options, { method: 'POST', url });
  }

  /**
   * Edits a sent message within 15 minutes of delivery (PATCH /v2/messages/{message_id}).
   * Checked before sending: text or attachment given, text at most 4096 characters. Not checkable
   * here (the SDK does not know which channel a message went through): editing exists only on
   * whatsapp web (text only), telegram, telegram bot, max and max bot (not for a message with a
   * keyboard), and only within the window; the service refuses the rest with a
   * `GatewayApiError`.
   */
  edit(messageId: string, params: EditMessageParams, options?: RequestOptions): GatewayPromise<MessageRef> {
    return this.promise(async () => {
      this.check(editMessageParams, params, 'edit');
      const path = `/v2/messages/${segment(messageId)}`;
      const spec = { surface: 'v2', method: 'PATCH', path, body: params } as const;
      return this.request(spec, options, (data) => this.read(messageRef, data));
    });
  }

  /**
   * Deletes a message for both sides (DELETE /v2/messages/{message_id}). Deleting exists only on
   * whatsapp, telegram, telegram bot, max and max bot; the service refuses other channels with a
   * `GatewayApiError` (the SDK cannot check the channel of a message id).
   */
  delete(messageId: string, options?: RequestOptions): GatewayPromise<MessageRef> {
    return this.promise(async () => {
      const spec = { surface: 'v2', method: 'DELETE', path: `/v2/messages/${segment(messageId)}` } as const;
      return this.request(spec, options, (data) => this.read(messageRef, data));
    });
  }

  /**
   * Starts an export of messages (POST /v2/messages/messages_dump); the result arrives in
   * messages_dump.status_update. The spec shows neither body nor answer, so both are untyped.
   */
  dump(params: MessagesDumpParams = {}, options?: RequestOptions): GatewayPromise<unknown> {
    return this.promise(async () => {
      this.check(messagesDumpParams, params, 'messages dump');
      const spec = {
        surface: 'v2',
        method: 'POST',
        path: '/v2/messages/messages_dump',
        body: params,
      } as const;
      return this.request(spec, options, (data) => data);
    });
  }
}
