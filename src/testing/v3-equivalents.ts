// What a v3 delivery says for a v2 status. The spec gives the v2 lists (failure reasons, channel
// status and reason) and the v3 lists (error codes, channel states) but no table between them:
// each v2 value goes to the v3 value of the same meaning, and to the v3 list's general value when
// no v3 value means the same.
import { FAILURE_REASON_PREFIXES, FAILURE_REASONS } from '../schemas/reasons.js';
import type { FakeChannel } from './state.js';

/** spec: Errors → Failure reasons, to API v3 → messages → error.error codes, where one means the same. */
const ERROR_CODES: Record<string, string> = {
  bad_contact: 'BAD_CONTACT',
  // max and telegram: user not found by username or phone — the contact does not exist
  contact_can_not_create: 'BAD_CONTACT',
  text_length_is_too_much: 'TOO_LONG_TEXT',
  is_spam: 'SPAM',
  to_many_requests: 'TOO_MANY_EXT_REQS',
  // file too large or type unsupported: TOO_BIG_CONTENT for a file over 50 MB (see v3ErrorCode)
  bad_content: 'WRONG_CONTENT',
  canceled: 'MESSAGE_CANCELLED',
  // wapi: the daily limit of 24-hour conversation sessions is spent, so it cannot write first
  over_24_hour_limit: '24_HOURS_EXCEEDED',
  // instagram: cannot write first, outside the 7-day window
  messages_not_text_first: '7_DAYS_EXCEEDED',
  unknown_error: 'UNKNOWN_ERROR',
};

/** spec: Limits → file size. */
const MAX_FILE_BYTES = 50 * 1024 * 1024;

/**
 * The v3 error code of a message that failed with `reason`: the code of the same meaning,
 * `GENERAL_ERROR` for a reason of the spec that has none, `UNKNOWN_ERROR` for one the spec does not
 * list. `body` is the send request (a bad_content file over 50 MB is `TOO_BIG_CONTENT`).
 */
export function v3ErrorCode(reason: string | null, body: Record<string, unknown>): string {
  const name = (reason ?? 'unknown_error').toLowerCase();
  const size = (body.attachment as { size?: unknown } | undefined)?.size;
  if (name === 'bad_content' && typeof size === 'number' && size > MAX_FILE_BYTES) return 'TOO_BIG_CONTENT';
  const code = Object.hasOwn(ERROR_CODES, name) ? ERROR_CODES[name] : undefined;
  if (code) return code;
  const listed =
    (FAILURE_REASONS as readonly string[]).includes(name) ||
    FAILURE_REASON_PREFIXES.some((prefix) => name.startsWith(prefix));
  return listed ? 'GENERAL_ERROR' : 'UNKNOWN_ERROR';
}

/** spec: Channel status reasons of a disabled channel, to API v3 → channelsUpdates states. */
const DISABLED_STATES: Record<string, string> = {
  not_enough_money: 'notEnoughMoney',
  unauthorized: 'unauthorized',
  // another phone scanned the QR: the channel is not authorized by its own number, and the remedy
  // is v3 unauthorized's, "authorize again" (v3 disabled is "not in the subscription, or during
  // maintenance", neither of which it is)
  foreignphone: 'unauthorized',
  openelsewhere: 'openElsewhere',
};

/**
 * The v3 state of a channel in v2 `status` / `reason`, or undefined when v3 has none (a channel
 * starting, but for its QR): `active`; `qr` while a QR waits for a scan; for a disabled channel
 * the state of its reason (foreignphone: `unauthorized`), else `disabled`, the v3 state of a
 * channel that is off (no reason, and blocked, rejected, qridle, whose meanings v3 has no state for).
 */
export function v3ChannelState(status: FakeChannel['status'], reason: string | null): string | undefined {
  if (status === 'active') return 'active';
  if (status === 'init') return reason === 'qr' ? 'qr' : undefined;
  return (reason !== null && Object.hasOwn(DISABLED_STATES, reason) && DISABLED_STATES[reason]) || 'disabled';
}
