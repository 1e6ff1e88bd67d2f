/**
 * Failure reasons of a message (spec: Errors → Failure reasons of a message). No runtime
 * dependency: the error classes use these types too.
 * @module
 */
import type { Lenient } from './lenient.js';

/** The failure reasons whose whole name the spec gives, in the spec's order. */
export const FAILURE_REASONS = [
  'network_error',
  'bad_contact',
  'text_length_is_too_much',
  'is_spam',
  'to_many_requests',
  'bad_content',
  'canceled',
  'over_24_hour_limit',
  'wapi_not_enough_money',
  'message_limit_exceeded',
  'bad_required_parameter',
  'voice_messages_forbidden',
  'input_user_deactivated',
  'privacy_premium_required',
  'allow_payment_required',
  'message_empty',
  'session_revoked',
  'file_part_missing',
  'channel_private',
  'contact_can_not_create',
  'channel_blocked',
  'chat_is_blocked',
  'messages_not_text_first',
  'unknown_error',
  'can_not_get_content',
  'target_user_is_blocked',
  'no_user_permissions',
  'viber_is_blocked',
] as const;

/**
 * The failure reasons whose name the spec gives only up to a trailing underscore ("the complete
 * identifiers of the reasons ending in an underscore: not shown"): a real reason starts with one
 * of these, e.g. `waba_rejected_by_marketing`.
 */
export const FAILURE_REASON_PREFIXES = [
  'messages_not_text_first_',
  'waba_message_',
  'waba_rejected_by_',
  'tgapi_megagroups_',
  'waba_limit_marketing_',
  'waba_business_account_',
  'stop_receiving_marketing_',
  'message_channel_',
  'messages_invalid_',
] as const;

/** A failure reason of the spec whose whole name it gives. */
export type KnownFailureReason = (typeof FAILURE_REASONS)[number];
/** A failure reason of the spec whose name it leaves open after a prefix. */
export type PrefixedFailureReason = `${(typeof FAILURE_REASON_PREFIXES)[number]}${string}`;
/** Every failure reason of the spec: `switch (reason)` over these is checked by the compiler. */
export type FailureReason = KnownFailureReason | PrefixedFailureReason;
/** A failure reason as delivered: one of the spec's, or any other string the service sends. */
export type MessageFailureReason = Lenient<FailureReason>;

const exact: ReadonlySet<string> = new Set(FAILURE_REASONS);

/**
 * Whether a delivered reason is one the spec lists (whole, or by its open-ended prefix); case
 * is ignored, as decoding ignores it.
 */
export function isFailureReason(reason: string): reason is FailureReason {
  const lower = reason.toLowerCase();
  return exact.has(lower) || FAILURE_REASON_PREFIXES.some((prefix) => lower.startsWith(prefix));
}
