import type { GatewayPromise, WithResponse } from '../core/api-promise.js';
import type { RequestOptions } from '../core/options.js';
import {
  type Channel,
  type CreateChannelParams,
  type CreatedChannel,
  channel,
  createChannelParams,
  createdChannel,
  type DeleteChannelParams,
  deleteChannelParams,
  type PairingCode,
  type PairingCodeParams,
  pairingCode,
  pairingCodeParams,
  type ReinitChannelParams,
  reinitChannelParams,
  type Submit2faParams,
  submit2faParams,
} from '../schemas/channels.js';
import { listOf } from '../schemas/lenient.js';
import { ChannelConnection } from './channel-connect/connection.js';
import type { ConnectOptions } from './channel-connect/steps.js';
import { Resource, segment } from './resource.js';

// Built once: a zod schema is costly to construct, so never per call.
const channelList = listOf(channel);
const createdList = listOf(createdChannel);
const pairingList = listOf(pairingCode);

/** `client.channels`: connect and manage messenger accounts (spec: Endpoints → Channels). */
export class Channels extends Resource {
  /**
   * Creates a channel (POST /v2/channels). `credentials` is typed by `transport`. Follow-up:
   * whatsapp, tgapi, viber, max send a QR in channel.qr_update; wapi returns a `url` to open.
   * Subscribe to webhooks first: some channels cannot be connected without them. vk channels can
   * be connected only from the account dashboard, not by partners through the API (spec).
   */
  create(params: CreateChannelParams, options?: RequestOptions): GatewayPromise<CreatedChannel[]> {
    return this.promise(async () => {
      this.check(createChannelParams, params, 'channel');
      const spec = { surface: 'v2', method: 'POST', path: '/v2/channels', body: params } as const;
      return this.#learned(await this.request(spec, options, (data) => this.read(createdList, data)));
    });
  }

  /** Sends the messenger's two-factor password (POST /v2/channels/{id}/auth/2fa). */
  submit2fa(channelId: string, params: Submit2faParams, options?: RequestOptions): GatewayPromise<void> {
    return this.promise(async () => {
      this.check(submit2faParams, params, '2fa');
      const path = `/v2/channels/${segment(channelId)}/auth/2fa`;
      return this.request({ surface: 'v2', method: 'POST', path, body: params }, options, () => undefined);
    });
  }

  /** Re-authorizes a channel (POST /v2/channels/{id}/reinit); it goes to active or init. */
  reinit(
    channelId: string,
    params: ReinitChannelParams,
    options?: RequestOptions,
  ): GatewayPromise<Channel[]> {
    return this.promise(async () => {
      this.check(reinitChannelParams, params, 'reinit');
      const path = `/v2/channels/${segment(channelId)}/reinit`;
      const spec = { surface: 'v2', method: 'POST', path, body: params } as const;
      return this.#learned(await this.request(spec, options, (data) => this.read(channelList, data)));
    });
  }

  /**
   * One channel (GET /v2/channels/{id}): the one element of the answer's `data`. A 404 answer is a
   * `NotFoundError`; a 200 whose `data` holds no channel is a `GatewayResponseError` (retryable:
   * the SDK never invents a 404 a job queue would take as final).
   */
  get(channelId: string, options?: RequestOptions): GatewayPromise<Channel> {
    return this.promise(async () => {
      const spec = { surface: 'v2', method: 'GET', path: `/v2/channels/${segment(channelId)}` } as const;
      return this.#learned(
        await this.request(spec, options, (data) => this.readOne(channelList, data, spec)),
      );
    });
  }

  /** Every channel of the account (GET /v2/channels). */
  list(options?: RequestOptions): GatewayPromise<Channel[]> {
    return this.promise(async () => {
      const spec = { surface: 'v2', method: 'GET', path: '/v2/channels' } as const;
      return this.#learned(await this.request(spec, options, (data) => this.read(channelList, data)));
    });
  }

  /** Removes a channel (DELETE /v2/channels/{id}); chats are deleted only with `delete_chats: true`. */
  delete(
    channelId: string,
    params: DeleteChannelParams = {},
    options?: RequestOptions,
  ): GatewayPromise<void> {
    return this.promise(async () => {
      this.check(deleteChannelParams, params, 'delete');
      const path = `/v2/channels/${segment(channelId)}`;
      const query = params.delete_chats === true ? { delete_chats: 'true' } : undefined;
      const spec = { surface: 'v2', method: 'DELETE', path, ...(query && { query }) } as const;
      return this.request(spec, options, () => undefined);
    });
  }

  /**
   * Asks for an 8-character pairing code to type in the whatsapp app instead of scanning the QR
   * (POST /v2/channels/{id}/pairing-code). Call it right after the QR webhook; an expired QR fails.
   */
  requestPairingCode(
    channelId: string,
    params: PairingCodeParams,
    options?: RequestOptions,
  ): GatewayPromise<PairingCode> {
    return this.promise(async () => {
      this.check(pairingCodeParams, params, 'pairing code');
      const path = `/v2/channels/${segment(channelId)}/pairing-code`;
      const spec = { surface: 'v2', method: 'POST', path, body: params } as const;
      return this.request(spec, options, (data) => this.readOne(pairingList, data, spec));
    });
  }

  /** The answer, once the client's `windows` (if any) learned the transport and tier of its channels. */
  async #learned<T extends WithResponse<CreatedChannel[] | Channel>>(answer: T): Promise<T> {
    const windows = this.core.windows;
    if (windows) await windows.learnChannels(Array.isArray(answer.data) ? answer.data : [answer.data]);
    return answer;
  }

  /**
   * Connects a messenger account in one loop: creates the channel and yields its steps (`created`,
   * `qr` with the PNG, `pairing-code`, `url` for wapi, `password`, `active` with the channel) from
   * the webhooks `options.hooks` decodes (v2 or v3), reading `channels.get` when a webhook is
   * late. Ends with ChannelConnectError on a failure, GatewayTimeoutError past `timeoutMs`.
   * @example
   * ```ts
   * const connection = client.channels.connect({ transport: 'whatsapp', credentials: {} }, { hooks });
   * for await (const step of connection) {
   *   if (step.kind === 'qr') await show(step.png);
   *   if (step.kind === 'password') await connection.submit2fa(await ask());
   * }
   * ```
   */
  connect(params: CreateChannelParams, options: ConnectOptions): ChannelConnection {
    const urlOf = (path: string) => this.core.urlOf({ surface: 'v2', method: 'GET', path });
    return new ChannelConnection(this, params, options, urlOf);
  }
}
