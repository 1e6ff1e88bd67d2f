/**
 * The enumerations of the spec, as plain constants: no zod, so loading them costs nothing.
 * @module
 */

/** Chat types of the spec (Resources → Recipient). */
export const CHAT_TYPES = [
  'whatsapp',
  'whatsgroup',
  'viber',
  'instagram',
  'telegram',
  'telegroup',
  'vk',
  'avito',
  'max',
  'maxgroup',
] as const;

/** Transports of the spec (What the service does → Transport values). */
export const TRANSPORTS = [
  'telegram',
  'tgapi',
  'vk',
  'wapi',
  'whatsapp',
  'instAPI',
  'viber',
  'avito',
  'max',
  'maxbot',
] as const;

/** Channel status values (spec: States → Channel status). */
export const CHANNEL_STATUSES = ['active', 'init', 'disabled'] as const;
/** Channel status reasons (spec: States → reason). */
export const CHANNEL_REASONS = [
  'wait_for_password',
  'wait_for_code',
  'qr',
  'sync',
  'blocked',
  'not_enough_money',
  'rejected',
  'unauthorized',
  'foreignphone',
  'qridle',
  'openelsewhere',
] as const;
/** Business-API tiers (spec: Resources → Channel). */
export const TIERS = [
  'TIER_0',
  'TIER_1K',
  'TIER_10K',
  'TIER_100K',
  'TIER_50',
  'TIER_250',
  'TIER_UNLIMITED',
] as const;

/** Event kinds of API v2 (spec: Events), including channel.update seen in a sample list. */
export const V2_EVENTS = [
  'message.add',
  'message.status_update',
  'message.delete',
  'message.edit',
  'waba_template.status_update',
  'channel.status_update',
  'channel.create',
  'channel.delete',
  'channel.qr_update',
  'channel.waba_tier_update',
  'group_chat.memberships_update',
  'group_chat.update',
  'crm_entities.contact_add',
  'crm_entities.deal_add',
  'messages_dump.status_update',
  'channel.update',
] as const;

/**
 * The error text of a failed v3 test POST (spec: API v3 webhook settings, rule 2): the address
 * given to `v3.webhooks.update` did not answer the service's `{ test: true }` with 200.
 */
export const V3_TEST_POST_FAILED = 'Webhooks request not valid. Response status must be 200.';

/** The two APIs of the service: v2 (snake_case, `client_access_token`) and v3 (camelCase, API key). */
export type Surface = 'v2' | 'v3';

/**
 * Longest text per chat type (spec: Limits — text length). Counted in UTF-16 code units, as
 * Telegram counts: an emoji outside the Basic Multilingual Plane counts 2. This is the stricter of
 * the usual counts, so a text that passes is never too long for the messenger.
 */
export const TEXT_LIMITS: Readonly<Record<string, number>> = {
  whatsapp: 4096,
  whatsgroup: 4096,
  telegram: 4096,
  telegroup: 4096,
  max: 4096,
  maxgroup: 4096,
  instagram: 1000,
};
