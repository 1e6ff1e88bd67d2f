// The service's documented refusals, written here again on purpose: the fake shares no rule with
// the SDK's own request checks, so a request the SDK lets through is still judged as the service
// would judge it.
import { asObject } from './http-utils.js';

/** spec: Recipient → Chat types. */
const CHAT_TYPES = new Set([
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
]);

/** spec: Limits → text length (4096 whatsapp, telegram, max; 1000 instagram). */
const TEXT_LIMIT: Record<string, number> = {
  whatsapp: 4096,
  whatsgroup: 4096,
  telegram: 4096,
  telegroup: 4096,
  max: 4096,
  maxgroup: 4096,
  instagram: 1000,
};

/** spec: Events → event kinds, and channel.update, which the spec's sample subscription list shows. */
export const V2_EVENTS = new Set([
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
]);

/** At most this many v2 subscriptions per account (the spec states no limit; the fake's memory needs one). */
export const MAX_SUBSCRIPTIONS = 1000;

const CONTENT = ['text', 'attachment', 'template'];

/** Why the service refuses the recipient of a send (spec: Recipient rules), or undefined. */
function recipientProblem(recipient: Record<string, unknown> | undefined): string | undefined {
  const chatType = recipient?.chat_type;
  if (typeof chatType !== 'string' || !CHAT_TYPES.has(chatType)) {
    return `recipient.chat_type: one of ${[...CHAT_TYPES].join(', ')}`;
  }
  const { chat_id, phone, username } = recipient as Record<string, unknown>;
  if (phone !== undefined && chatType !== 'telegram' && chatType !== 'max') {
    return 'recipient.phone: only for telegram and max chats';
  }
  if (username !== undefined && chatType !== 'telegram') return 'recipient.username: only for telegram chats';
  if (chat_id === undefined && phone === undefined && username === undefined) {
    return 'recipient: chat_id, phone or username is required';
  }
  return undefined;
}

/** Why the service refuses a send body (spec: POST /v2/messages), or undefined when it takes it. */
export function sendProblem(body: Record<string, unknown>): string | undefined {
  const given = CONTENT.filter((k) => body[k] !== undefined).length;
  if (given > 1) return 'Cannot provide more that one of text, attachment or template';
  if (given === 0) return 'one of text, attachment or template is required';
  if (typeof body.channel_id !== 'string') return 'channel_id is required';
  return recipientProblem(asObject(body.recipient));
}

/** True when a send's text is over its chat type's limit: the service takes it, then fails it. */
export function textTooLong(body: Record<string, unknown>): boolean {
  const chatType = String(asObject(body.recipient)?.chat_type);
  const limit = TEXT_LIMIT[chatType];
  return typeof body.text === 'string' && limit !== undefined && body.text.length > limit;
}

/** True for an absolute http(s) address. */
function isWebAddress(url: unknown): boolean {
  if (typeof url !== 'string' || !URL.canParse(url)) return false;
  const { protocol } = new URL(url);
  return protocol === 'http:' || protocol === 'https:';
}

/**
 * Why the service refuses these subscription items (spec: POST/PATCH /v2/webhooks), or undefined.
 * `subscribed` are the events the account holds besides them.
 */
export function subscriptionProblem(
  items: Record<string, unknown>[],
  subscribed: Iterable<string>,
): string | undefined {
  for (const [i, item] of items.entries()) {
    if (typeof item.event !== 'string' || !V2_EVENTS.has(item.event)) {
      return `data[${i}].event: one of the spec's events`;
    }
    if (!isWebAddress(item.url)) return `data[${i}].url: an absolute http(s) address`;
  }
  // spec: deal_add works only when crm_entities.contact_add is also subscribed
  const events = new Set([...subscribed, ...items.map((i) => i.event as string)]);
  if (events.has('crm_entities.deal_add') && !events.has('crm_entities.contact_add')) {
    return 'crm_entities.deal_add needs crm_entities.contact_add subscribed too';
  }
  return undefined;
}
