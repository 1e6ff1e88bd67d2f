import type { GatewayPromise } from '../../core/api-promise.js';
import { checkMs, MAX_TIMER_MS, optionError } from '../../core/checks.js';
import {
  ChannelConnectError,
  GatewayAbortError,
  GatewayError,
  GatewayTimeoutError,
} from '../../core/errors.js';
import type { RequestOptions } from '../../core/options.js';
import { withRequestSent } from '../../core/request-sent.js';
import { type ReportProblem, watchDecoded } from '../../internal/decoded-deliveries.js';
import { onAbort, untilAborted } from '../../internal/on-abort.js';
import type {
  Channel,
  CreateChannelParams,
  CreatedChannel,
  PairingCode,
  PairingCodeParams,
  Submit2faParams,
} from '../../schemas/channels.js';
import type { Webhook } from '../../webhooks/decode/parse.js';
import { Inbox, type InboxItem } from './inbox.js';
import { qrToPng } from './qr-to-png.js';
import { signalsOf } from './signals.js';
import type { ConnectOptions, ConnectStep } from './steps.js';

/** The calls of `client.channels` the flow makes. */
export interface ChannelCalls {
  /** `channels.create`. */
  create(params: CreateChannelParams, options?: RequestOptions): GatewayPromise<CreatedChannel[]>;
  /** `channels.get`. */
  get(channelId: string, options?: RequestOptions): GatewayPromise<Channel>;
  /** `channels.submit2fa`. */
  submit2fa(channelId: string, params: Submit2faParams, options?: RequestOptions): GatewayPromise<void>;
  /** `channels.requestPairingCode`. */
  requestPairingCode(
    channelId: string,
    params: PairingCodeParams,
    options?: RequestOptions,
  ): GatewayPromise<PairingCode>;
}

const statusOf = (channel: Channel): InboxItem => ({
  type: 'status',
  status: String(channel.status ?? 'init'),
  reason: channel.reason ?? null,
});

/**
 * A channel being connected, returned by `client.channels.connect`: iterate it (once) for its
 * steps; answer a `password` step with {@link ChannelConnection.submit2fa}. The iteration ends
 * after `active`, or rejects with ChannelConnectError (the channel failed: `reason`,
 * `channelId`), GatewayTimeoutError past `timeoutMs`, or GatewayAbortError when `signal`
 * aborts. The error's `requestSent` speaks for the channel's creation: false only when it surely
 * never reached the service (connecting again then cannot create a second channel), true once
 * the channel exists, whichever later step failed. A `break`, an abort or the end removes its
 * webhook listener and stops its calls.
 */
export class ChannelConnection implements AsyncIterable<ConnectStep> {
  readonly #calls: ChannelCalls;
  /** The full address of a path, as the client's errors give it. */
  readonly #urlOf: (path: string) => string;
  readonly #params: CreateChannelParams;
  readonly #options: ConnectOptions;
  readonly #inbox = new Inbox();
  readonly #stop = new AbortController();
  #started = false;
  #channelId: string | undefined;
  #passwordAsked = false;
  /** The last step yielded, and whether a password was accepted since: what a time-out reports. */
  #lastStep: ConnectStep['kind'] | undefined;
  #passwordSent = false;

  /**
   * @internal made by `channels.connect`
   * @throws GatewayValidationError when `timeoutMs` or `pollIntervalMs` is out of range
   */
  constructor(
    calls: ChannelCalls,
    params: CreateChannelParams,
    options: ConnectOptions,
    urlOf: (path: string) => string,
  ) {
    this.#calls = calls;
    this.#urlOf = urlOf;
    this.#params = params;
    this.#options = checkConnectOptions(options);
  }

  /** The channel's id, once created (after the `created` step). */
  get channelId(): string | undefined {
    return this.#channelId;
  }

  /**
   * Sends the messenger's two-factor password for a `password` step. A refused code rejects
   * (the service's error, e.g. BadRequestError) and the flow gives a new `password` step.
   * @throws GatewayError before the channel exists
   */
  async submit2fa(code: string): Promise<void> {
    const channelId = this.#channelId;
    if (channelId === undefined) {
      throw new GatewayError('submit2fa: the channel is not created yet', { requestSent: false });
    }
    const transport = this.#params.transport as Submit2faParams['transport'];
    try {
      await this.#calls.submit2fa(
        channelId,
        { two_factor_code: code, transport },
        { signal: this.#stop.signal },
      );
      this.#passwordSent = true;
    } catch (error) {
      this.#passwordAsked = false;
      throw error;
    } finally {
      this.#inbox.push(undefined, { type: 'check' }); // read the status now rather than wait
    }
  }

  /** Starts the flow: creates the channel and yields its steps. A connection is iterated once. */
  [Symbol.asyncIterator](): AsyncIterator<ConnectStep> {
    if (this.#started) {
      throw new GatewayError('channels.connect: a connection is iterated once', { requestSent: false });
    }
    this.#started = true;
    return this.#run();
  }

  /** Every wait and call, raced with the flow's own signal (abort, time-out, break). */
  #guard<T>(work: Promise<T>): Promise<T> {
    return untilAborted(work, this.#stop.signal);
  }

  /** The flow: listens to the handler's deliveries, creates the channel, yields its steps; stops listening at the end. */
  async *#run(): AsyncGenerator<ConnectStep, void, undefined> {
    const { hooks } = this.#options;
    const stop = this.#stop;
    const disarm = this.#armStops();
    // Every delivery as the handler decodes it, before its dispatch: a queue's too.
    const unwatch = watchDecoded(hooks, (webhook, report) => this.#hear(webhook as Webhook, report));
    try {
      // Not raced with the flow's signal: the call ends at once when it aborts, and its error says
      // whether the create request may have left, which the flow's own error then says too.
      const [created] = await this.#calls.create(this.#params, { signal: stop.signal });
      if (!created) throw new GatewayError('channels.connect: the create answer holds no channel');
      const channelId = created.channel_id;
      this.#channelId = channelId;
      this.#inbox.channelId = channelId;
      yield this.#live({ kind: 'created', channelId, transport: String(created.transport) });
      if (typeof created.url === 'string') yield this.#live({ kind: 'url', channelId, url: created.url });
      yield* this.#steps(channelId);
    } catch (error) {
      // The flow's error speaks for the channel's creation: once created, whatever step failed
      // (a poll refused, a pairing code that broke a rule) says it may have reached the service.
      const sent = this.#channelId !== undefined || !(error instanceof GatewayError) || error.requestSent;
      throw withRequestSent(stop.signal.aborted ? stop.signal.reason : error, sent);
    } finally {
      unwatch();
      disarm();
      this.#inbox.close(); // its poll timer would hold the process for up to pollIntervalMs
      if (!stop.signal.aborted) stop.abort(new GatewayError('channels.connect: the flow ended'));
    }
  }

  /** Keeps what a delivery says of the channel; a QR that cannot be read is reported and skipped. */
  #hear(webhook: Webhook, report: ReportProblem): void {
    for (const [channelId, signal] of signalsOf(webhook)) {
      if (!this.#inbox.accepts(channelId)) continue;
      if (signal.type !== 'qr') {
        this.#inbox.push(channelId, signal);
        continue;
      }
      try {
        this.#inbox.push(channelId, { type: 'png', png: qrToPng(signal.qr) });
      } catch (error) {
        report(error as Error); // the next QR replaces it
      }
    }
  }

  /** A step, unless the flow was stopped: after an abort or a time-out the next thing is the rejection. */
  #live(step: ConnectStep): ConnectStep {
    this.#stop.signal.throwIfAborted();
    this.#lastStep = step.kind;
    if (step.kind === 'password') this.#passwordSent = false;
    return step;
  }

  /** The time-out's sentence: what the flow was waiting for when the time ran out, and its last step. */
  #timeoutMessage(timeoutMs: number): string {
    const channelId = this.#channelId;
    if (channelId === undefined)
      return `channels.connect: no channel created within ${timeoutMs} ms (the service did not answer the create)`;
    const last = this.#lastStep ?? 'created';
    const waiting =
      last === 'password' && this.#passwordSent
        ? 'the channel to become active after the password'
        : WAITING[last];
    return `channels.connect: channel ${channelId} not active within ${timeoutMs} ms: waiting for ${waiting} (last step: ${last})`;
  }

  /**
   * Stops the flow past `timeoutMs` (GatewayTimeoutError) or when the caller's `signal` aborts
   * (GatewayAbortError); gives back what undoes both.
   */
  #armStops(): () => void {
    const { signal, timeoutMs = 300_000 } = this.#options;
    const stop = this.#stop;
    const where = () =>
      this.#channelId === undefined
        ? { method: 'POST', url: this.#urlOf('/v2/channels') }
        : { method: 'GET', url: this.#urlOf(`/v2/channels/${encodeURIComponent(this.#channelId)}`) };
    const timeOut = () =>
      stop.abort(
        new GatewayTimeoutError({ ...where(), timeoutMs, message: this.#timeoutMessage(timeoutMs) }),
      );
    const timer = setTimeout(timeOut, timeoutMs);
    const abort = (reason: unknown) => stop.abort(new GatewayAbortError({ ...where(), cause: reason }));
    if (signal?.aborted) abort(signal.reason);
    const cancelAbort = signal && !signal.aborted ? onAbort(signal, abort) : undefined;
    return () => {
      clearTimeout(timer);
      cancelAbort?.();
    };
  }

  /** The steps after `created`, from the signals heard (or `channels.get` when none came), until `active`. */
  async *#steps(channelId: string): AsyncGenerator<ConnectStep, void, undefined> {
    const { pollIntervalMs = 5000 } = this.#options;
    let pairingAsked = this.#options.pairingPhone === undefined;
    for (;;) {
      let item = this.#inbox.take();
      if (item === undefined) {
        if (await this.#guard(this.#inbox.next(pollIntervalMs))) continue;
        item = { type: 'check' };
      }
      if (item.type === 'check')
        item = statusOf(await this.#guard(this.#calls.get(channelId, this.#signal())));
      if (item.type === 'png') {
        yield this.#live({ kind: 'qr', channelId, png: item.png });
        if (!pairingAsked) {
          pairingAsked = true;
          yield this.#live(await this.#pairingCode(channelId));
        }
      } else if (item.type === 'status') {
        const step = await this.#statusStep(channelId, item.status, item.reason);
        if (step) yield this.#live(step);
        if (step?.kind === 'active') return;
      }
    }
  }

  /** Asks for the pairing code of `pairingPhone` (after the first QR). */
  async #pairingCode(channelId: string): Promise<ConnectStep> {
    const params = { transport: 'whatsapp', pairing_phone: this.#options.pairingPhone } as const;
    const answer = await this.#guard(this.#calls.requestPairingCode(channelId, params, this.#signal()));
    return {
      kind: 'pairing-code',
      channelId,
      code: String(answer.pairing_code),
      phone: answer.pairing_phone ?? null,
    };
  }

  /**
   * The step a channel status makes: `active` (with the channel read afresh), `password` (once
   * per ask), or none; a disabled channel ends the flow with ChannelConnectError.
   */
  async #statusStep(
    channelId: string,
    status: string,
    reason: string | null,
  ): Promise<ConnectStep | undefined> {
    if (status === 'active') {
      const channel = await this.#guard(this.#calls.get(channelId, this.#signal()));
      return { kind: 'active', channelId, channel };
    }
    if (status === 'disabled') throw new ChannelConnectError({ reason: reason ?? 'disabled', channelId });
    if (reason === 'wait_for_password' && !this.#passwordAsked) {
      this.#passwordAsked = true;
      return { kind: 'password', channelId };
    }
    return undefined;
  }

  /** The request options of the flow's calls: stopped with the flow. */
  #signal(): { signal: AbortSignal } {
    return { signal: this.#stop.signal };
  }
}

/** What the flow waits for after each step, as a time-out says it. */
const WAITING: Record<ConnectStep['kind'], string> = {
  created: 'its first QR code or its status (a bot becomes active by itself)',
  qr: 'the QR code to be scanned',
  'pairing-code': 'the pairing code to be typed in the app',
  url: 'the connection address to be opened',
  password: 'the two-factor password (submit2fa)',
  active: 'nothing',
};

/** Shortest `pollIntervalMs`: `channels.get` read more often than this would eat the rate limit. */
const MIN_POLL_MS = 1000;

/** The options of `channels.connect`, checked at the door as the client's are. */
function checkConnectOptions(options: ConnectOptions): ConnectOptions {
  const what = 'channels.connect options';
  const { hooks } = options;
  if (typeof hooks !== 'object' || hooks === null) {
    throw optionError(['hooks'], "the WebhookHandler receiving the account's deliveries", hooks, what);
  }
  if (options.timeoutMs !== undefined) checkMs(options.timeoutMs, ['timeoutMs'], what);
  const poll = options.pollIntervalMs;
  if (poll !== undefined && !(typeof poll === 'number' && poll >= MIN_POLL_MS && poll <= MAX_TIMER_MS)) {
    throw optionError(
      ['pollIntervalMs'],
      `a number of milliseconds >= ${MIN_POLL_MS} and <= ${MAX_TIMER_MS}`,
      poll,
      what,
    );
  }
  return options;
}
