import { formatPath } from '../internal/format-path.js';
/**
 * Every error the SDK throws, in one file so the hierarchy reads top to bottom.
 * This file imports nothing from ky: the `/webhooks` entry shares these classes.
 * @module
 */

import type { MessageFailureReason } from '../schemas/reasons.js';
import type { ApiErrorCode } from './api-codes.js';

/** One broken rule of a request or a webhook body: where, and what a person should do about it. */
export interface Issue {
  /** Path of the field, e.g. `['recipient', 'phone']`; empty for the whole value. */
  path: (string | number)[];
  /** A sentence naming the rule that was broken. */
  message: string;
}

function summarize(issues: readonly Issue[]): string {
  return issues.map((i) => (i.path.length ? `${formatPath(i.path)}: ${i.message}` : i.message)).join('; ');
}

/** Options common to every SDK error. */
export interface GatewayErrorOptions {
  /** Whether repeating the same call could succeed. Default false. */
  retryable?: boolean;
  /** How long to wait before repeating, when known (ms). */
  retryAfterMs?: number;
  /** The underlying error, never one that carries a request's headers. */
  cause?: unknown;
  /**
   * Whether the call's request may have reached the service. Default true: only the SDK, when it
   * knows that nothing left this process, says false.
   */
  requestSent?: boolean;
}

/**
 * Base of everything the SDK throws.
 *
 * `retryable` tells a job queue whether repeating the call could succeed without parsing messages.
 * It is false for a POST that may have reached the service (a 5xx or a time-out), because the API
 * has no idempotency keys and repeating it could send a message twice. `requestSent` tells
 * whether the request may have reached the service at all: when it is false, repeating the call
 * cannot do anything twice.
 */
export class GatewayError extends Error {
  override name = 'GatewayError';
  /** Whether repeating the same call could succeed. */
  readonly retryable: boolean;
  /** How long to wait before repeating, when the service said so (ms). */
  readonly retryAfterMs: number | undefined;
  /**
   * Whether the call's request may have reached the service. `false` when the SDK knows that no
   * byte of it left this process: a check failed, the `token` function threw or there was no
   * token, the caller aborted or the time ran out while the call waited for the rate limiter, the
   * connection was refused. A send that failed with `requestSent: false` can be repeated without
   * risking a second message. `true` otherwise: an answer came (an error status included), or the
   * request left and no answer came. On errors that are not about a request of the client (a
   * webhook's, `DeliveryTracker`'s) it is `true`.
   */
  readonly requestSent: boolean;

  constructor(message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
    this.requestSent = options.requestSent ?? true;
  }

  /** A plain object for logs; carries no credential (none is ever stored on an error). */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, message: this.message };
    for (const [key, value] of Object.entries(this)) {
      if (key !== 'cause' && value !== undefined) out[key] = value;
    }
    return out;
  }
}

/** What an API error knows of its request and the answer. */
export interface GatewayApiErrorInit extends GatewayErrorOptions {
  status: number;
  method: string;
  url: string;
  code?: string | undefined;
  description?: string | undefined;
  data?: unknown;
  requestId?: string | undefined;
  headers?: Record<string, string>;
}

/** The service answered with a status outside 2xx. Subclasses name the status. */
export class GatewayApiError extends GatewayError {
  override name = 'GatewayApiError';
  /** HTTP status of the answer. */
  readonly status: number;
  /**
   * The body's `error` code (spec: Errors → Error body), or undefined for an empty body: one of
   * `API_ERROR_CODES` (`uriNotValid`, `testPostNotPassed`, `TOO_MACH_ENTITIES`) or any
   * other code the service sends.
   */
  readonly code: ApiErrorCode | undefined;
  /** The body's short English `description`. */
  readonly description: string | undefined;
  /** The body's `data`, for developer analysis. */
  readonly data: unknown;
  /** A request id when the body or headers carried one. */
  readonly requestId: string | undefined;
  /** HTTP method of the call, upper case. */
  readonly method: string;
  /** Full address of the call (never carries a credential: those travel in headers). */
  readonly url: string;
  /** Response headers, lower-case names. */
  readonly headers: Record<string, string>;

  constructor(init: GatewayApiErrorInit) {
    const what = init.code ?? init.description ?? 'no error body';
    const detail = init.description && init.code ? `${init.code}: ${init.description}` : what;
    super(`${init.method} ${init.url} failed with ${init.status} (${detail})`, init);
    this.status = init.status;
    this.code = init.code;
    this.description = init.description;
    this.data = init.data;
    this.requestId = init.requestId;
    this.method = init.method;
    this.url = init.url;
    this.headers = init.headers ?? {};
  }
}

/** 400: the service rejected the request (v3 codes `uriNotValid`, `testPostNotPassed` arrive here). */
export class BadRequestError extends GatewayApiError {
  override name = 'BadRequestError';
}
/** 401: the token or API key is missing or wrong. */
export class AuthenticationError extends GatewayApiError {
  override name = 'AuthenticationError';
}
/** 403: the route is not allowed for this key. */
export class PermissionDeniedError extends GatewayApiError {
  override name = 'PermissionDeniedError';
}
/** 404: no such resource. */
export class NotFoundError extends GatewayApiError {
  override name = 'NotFoundError';
}
/** 429: over the service's rate limit (spec: Limits, 500 requests per 5 seconds). */
export class RateLimitError extends GatewayApiError {
  override name = 'RateLimitError';
}
/** 5xx: the service failed. */
export class InternalServerError extends GatewayApiError {
  override name = 'InternalServerError';
}

/** The request got no response: DNS failure, connection refused or reset. */
export class GatewayConnectionError extends GatewayError {
  override name = 'GatewayConnectionError';
  /** HTTP method of the call. */
  readonly method: string;
  /** Full address of the call. */
  readonly url: string;
  /** The system error code when known (`ECONNREFUSED`, `ENOTFOUND`, …). */
  readonly errorCode: string | undefined;

  constructor(init: { method: string; url: string; errorCode?: string | undefined } & GatewayErrorOptions) {
    const why = init.errorCode ? ` (${init.errorCode})` : '';
    super(`${init.method} ${init.url}: no response from the service${why}`, init);
    this.method = init.method;
    this.url = init.url;
    this.errorCode = init.errorCode;
  }
}

/**
 * One attempt ran past the `timeout` option. With `queued: true` the time ran out while the call
 * waited for the rate limiter: it was never sent (`requestSent: false` unless an earlier attempt
 * of the call was), so repeating it is safe (`retryable`).
 */
export class GatewayTimeoutError extends GatewayError {
  override name = 'GatewayTimeoutError';
  /** HTTP method of the call. */
  readonly method: string;
  /** Full address of the call. */
  readonly url: string;
  /** The time limit of one attempt (ms). */
  readonly timeoutMs: number;
  /** True when the call never started: the time ran out in the rate limiter's queue. */
  readonly queued: boolean;

  /**
   * @param init.message the whole message, for a time limit that is not one call's (what
   *   `channels.connect` was waiting for); default: the call and `no answer within N ms`
   */
  constructor(
    init: {
      method: string;
      url: string;
      timeoutMs: number;
      queued?: boolean;
      message?: string;
    } & GatewayErrorOptions,
  ) {
    const why = init.queued
      ? `not sent: no rate-limiter slot within ${init.timeoutMs} ms`
      : `no answer within ${init.timeoutMs} ms`;
    super(init.message ?? `${init.method} ${init.url}: ${why}`, { requestSent: !init.queued, ...init });
    this.method = init.method;
    this.url = init.url;
    this.timeoutMs = init.timeoutMs;
    this.queued = init.queued ?? false;
  }
}

/**
 * The caller's signal aborted the call. `cause` is the signal's reason. Never retryable: the
 * caller asked for it to stop. A write aborted after it left may still have reached the service
 * (`requestSent: true`); one aborted before (waiting for the rate limiter) did not.
 */
export class GatewayAbortError extends GatewayError {
  override name = 'GatewayAbortError';

  constructor(init: { method: string; url: string; cause: unknown; requestSent?: boolean }) {
    super(`${init.method} ${init.url}: aborted by the caller`, init);
  }
}

/**
 * An answer the SDK cannot read (no data where the call returns some, another shape, a body over
 * `maxResponseBytes`). With
 * `accepted: true` (a write: POST, PATCH, DELETE) the service did what was asked: do not repeat
 * it (a repeated send is a second message).
 */
export class GatewayResponseError extends GatewayError {
  override name = 'GatewayResponseError';
  /** The answer's status. */
  readonly status: number;
  /** The request id the answer carried, when it did. */
  readonly requestId: string | undefined;
  /** True when the call was a write the service accepted: it happened, whatever the answer says. */
  readonly accepted: boolean;

  constructor(
    init: { method: string; url: string; status: number; requestId?: string | undefined; why: string } & Omit<
      GatewayErrorOptions,
      'retryable'
    >,
  ) {
    const accepted = init.method !== 'GET' && init.status >= 200 && init.status < 300;
    super(
      `${init.method} ${init.url}: answer ${init.status} unreadable: ${init.why}${accepted ? ' (accepted: do not repeat it)' : ''}`,
      {
        cause: init.cause,
        retryable: !accepted,
      },
    );
    this.status = init.status;
    this.requestId = init.requestId;
    this.accepted = accepted;
  }
}

/** A request broke a rule of the spec before it was sent; no request was made (`requestSent: false`). */
export class GatewayValidationError extends GatewayError {
  override name = 'GatewayValidationError';
  /** Every broken rule, each with its field path. */
  readonly issues: Issue[];

  constructor(issues: Issue[], what = 'request') {
    super(`Invalid ${what}: ${summarize(issues)}`, { requestSent: false });
    this.issues = issues;
  }
}

/** What a {@link ConversationWindowError} knows of the send it refused. */
export interface ConversationWindowErrorInit {
  /** `window`: text or a file outside the chat's window; `tier`: a conversation past the channel's tier. */
  code: 'window' | 'tier';
  /** The channel's transport: `wapi` or `instAPI`. */
  transport: string;
  channelId: string;
  chatId: string;
  lastInboundAt: number | undefined;
  closedAt: number | undefined;
  /** For `tier`: the channel's tier and its conversations a day. */
  tier?: { name: string; cap: number } | undefined;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The sentence of a refusal: what is closed, since when, and what would open it (no chat id, no text). */
function windowRefusal(init: ConversationWindowErrorInit): string {
  const on = `channel ${init.channelId}`;
  if (init.code === 'tier') {
    const tier = init.tier ? `${init.tier.name}: ${init.tier.cap}` : 'its tier';
    return `Not sent: a template to this chat would start a new conversation, and the wapi ${on} has started all the conversations its tier allows in 24 hours (${tier}); it fails with over_24_hour_limit`;
  }
  const wapi = init.transport.toLowerCase() === 'wapi';
  const window = wapi ? '24-hour' : '7-day';
  const span = wapi ? '24 hours' : '7 days';
  const since =
    init.closedAt === undefined
      ? `no message of the customer in the last ${span}`
      : `it closed at ${iso(init.closedAt)}, ${span} after the customer's last message`;
  const open = wapi
    ? 'send a template: a template opens a wapi conversation'
    : 'it opens again when the customer writes';
  return `Not sent: the ${window} conversation window of this ${wapi ? 'wapi' : 'instagram'} chat on ${on} is closed (${since}); ${open}`;
}

/**
 * `GatewayClient({ windows })` refused a send before any request (`requestSent: false`): text or
 * a file to a chat outside its conversation window (`code: 'window'`: wapi 24 hours, instagram
 * 7 days after the customer's last message), or a template that would start a wapi conversation
 * past the channel's tier (`code: 'tier'`). The service would accept such a send and fail it later
 * (`over_24_hour_limit`, `messages_not_text_first`). A template opens a wapi conversation.
 */
export class ConversationWindowError extends GatewayValidationError {
  override name = 'ConversationWindowError';
  /** Why: outside the chat's window, or past the channel's tier. */
  readonly code: 'window' | 'tier';
  /** The channel the send named. */
  readonly channelId: string;
  /**
   * The chat the send named. Not enumerable: `JSON.stringify(error)` and loggers leave it out, as
   * it is often a phone number.
   */
  declare readonly chatId: string;
  /** When the customer last wrote (ms since the epoch), or undefined when no message is known. */
  readonly lastInboundAt: number | undefined;
  /** When the window closed (ms since the epoch), or undefined when it never opened. */
  readonly closedAt: number | undefined;

  constructor(init: ConversationWindowErrorInit) {
    super([{ path: [], message: windowRefusal(init) }], 'send');
    this.message = this.issues[0]?.message ?? this.message;
    this.code = init.code;
    this.channelId = init.channelId;
    Object.defineProperty(this, 'chatId', { value: init.chatId, enumerable: false });
    this.lastInboundAt = init.lastInboundAt;
    this.closedAt = init.closedAt;
  }
}

/** A webhook body is not valid JSON or does not have the structure of any known delivery. */
export class WebhookParseError extends GatewayError {
  override name = 'WebhookParseError';
  /** Every structural problem found, each with its path. */
  readonly issues: Issue[];
  /**
   * The body as it arrived, so nothing is lost (string when it was text or bytes). Not enumerable:
   * `JSON.stringify(error)` and loggers leave it out, since it holds phones and texts.
   */
  declare readonly rawBody: unknown;
  /**
   * At most 100 issues are kept, so a body of a million bad items costs about what parsing it
   * does: this counts the further rejected items whose issues are not listed.
   */
  readonly omitted: number;

  constructor(issues: Issue[], rawBody: unknown, options: GatewayErrorOptions & { omitted?: number } = {}) {
    const more = options.omitted ? ` (and ${options.omitted} more rejected items, not listed)` : '';
    super(`Webhook body could not be decoded: ${summarize(issues)}${more}`, options);
    this.issues = issues;
    Object.defineProperty(this, 'rawBody', { value: rawBody, enumerable: false });
    this.omitted = options.omitted ?? 0;
  }
}

/** A webhook delivery failed its authorization check (v3 crmKey or the `secret` query value). */
export class WebhookAuthError extends GatewayError {
  override name = 'WebhookAuthError';
}

/**
 * Whether a failure reason is one the spec calls temporary (sending again may succeed):
 * `network_error`, `to_many_requests`, and `message_channel_…` (the channel is temporarily
 * unavailable). Case is ignored, as decoding ignores it.
 */
export function isTemporaryReason(reason: string | null): boolean {
  const lower = reason?.toLowerCase() ?? '';
  return lower === 'network_error' || lower === 'to_many_requests' || lower.startsWith('message_channel_');
}

/** What the reasons of the conversation windows mean, said beside them (see ConversationWindows). */
const WINDOW_REASONS: Readonly<Record<string, string>> = {
  over_24_hour_limit:
    "wapi: outside the chat's 24-hour conversation window, or past the conversations the channel's tier allows a day; a template opens a conversation",
  messages_not_text_first:
    "instagram: outside the chat's 7-day conversation window; it opens again when the customer writes",
};

/**
 * DeliveryTracker: the message reached status `failed`. The message says what the reasons of the
 * conversation windows mean (`over_24_hour_limit`, `messages_not_text_first`).
 */
export class MessageFailedError extends GatewayError {
  override name = 'MessageFailedError';
  /**
   * The failure reason of the spec (Errors → Failure reasons), e.g. `bad_contact` or
   * `waba_rejected_by_…`; see `FAILURE_REASONS` and `FAILURE_REASON_PREFIXES`.
   */
  readonly reason: MessageFailureReason | null;
  /** The send's request id. */
  readonly requestId: string;
  /** The message id when the service reported one. */
  readonly messageId: string | null;

  constructor(init: { reason: MessageFailureReason | null; requestId: string; messageId: string | null }) {
    const reason = init.reason;
    const meaning =
      reason !== null && Object.hasOwn(WINDOW_REASONS, reason) ? WINDOW_REASONS[reason] : undefined;
    const why = `${init.reason ?? 'no reason given'}${meaning ? ` (${meaning})` : ''}`;
    super(`Message ${init.requestId} failed: ${why}`, {
      retryable: isTemporaryReason(init.reason),
    });
    this.reason = init.reason;
    this.requestId = init.requestId;
    this.messageId = init.messageId;
  }
}

/** DeliveryTracker: no final status arrived in time. */
export class DeliveryTimeoutError extends GatewayError {
  override name = 'DeliveryTimeoutError';
  /** The send's request id. */
  readonly requestId: string;
  /** The last status seen, if any. */
  readonly lastStatus: string | undefined;

  constructor(init: {
    requestId: string;
    timeoutMs: number;
    until: string;
    lastStatus?: string | undefined;
  }) {
    const last = init.lastStatus ? ` (last status: ${init.lastStatus})` : '';
    super(`Message ${init.requestId} did not reach ${init.until} within ${init.timeoutMs} ms${last}`);
    this.requestId = init.requestId;
    this.lastStatus = init.lastStatus;
  }
}

/**
 * `channels.connect`: the channel failed to connect, e.g. `disabled` with reason `qridle` (the QR
 * expired), `foreignphone` (another phone scanned it) or `openelsewhere`. Connect it again with
 * `channels.reinit` or a new `channels.connect`.
 */
export class ChannelConnectError extends GatewayError {
  override name = 'ChannelConnectError';
  /** Why it failed: the channel's reason (`qridle`, `foreignphone`, `openelsewhere`, …) or its status. */
  readonly reason: string;
  /** The channel that failed. */
  readonly channelId: string;

  constructor(init: { reason: string; channelId: string }) {
    super(`Channel ${init.channelId} failed to connect: ${init.reason}`);
    this.reason = init.reason;
    this.channelId = init.channelId;
  }
}
