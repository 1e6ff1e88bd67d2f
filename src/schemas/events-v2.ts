/**
 * Webhook events of API v2 (spec: Events), in the spec's order. Decoding checks structure and
 * tolerates values (DESIGN.md, Webhooks → Decoding): ids are unformatted strings (numbers decode to
 * strings), enumerations are case-insensitive and keep unknown values, optional fields may be null
 * or absent, unknown fields are kept.
 * @module
 */
import { z } from 'zod';
import { CHANNEL_REASONS, CHANNEL_STATUSES, TIERS } from './channels.js';
import { CHAT_TYPES } from './common.js';
import { type Kit, lenientKit, strictKit } from './lenient.js';

/** Outbound message statuses (spec: States → Outbound message status), in order. */
export const MESSAGE_STATUSES = ['accepted', 'sent', 'delivered', 'read', 'failed'] as const;
/** Failure reasons of a message (spec: Errors → Failure reasons); unknown ones are kept. */
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
  'messages_not_text_first_',
  'messages_not_text_first',
  'unknown_error',
  'can_not_get_content',
  'target_user_is_blocked',
  'no_user_permissions',
  'viber_is_blocked',
] as const;
/** Template moderation statuses (spec: States → Template moderation status). */
export const TEMPLATE_STATUSES = ['APPROVED', 'PENDING', 'REJECTED', 'PAUSED', 'DISABLED'] as const;
/** Group member statuses (spec: States → Group member status). */
export const MEMBER_STATUSES = ['in_group', 'invited', 'unknown', 'deleted', 'not_exists'] as const;
/** Chat types as delivered: the send list plus `cian`, seen in samples. */
export const EVENT_CHAT_TYPES = [...CHAT_TYPES, 'cian'] as const;

/**
 * Builds the v2 event schemas from a kit of field helpers: once lenient (the public schemas, and
 * the source of the types), once strict (the fast path of decoding).
 */
function buildV2(k: Kit) {
  const opt = k.str.nullish();
  const optId = k.id.nullish();
  const chatType = k.oneOf(EVENT_CHAT_TYPES);
  const source = k.oneOf(['auto', 'by_user'] as const);

  /** A file in an event; `size` in bytes. */
  const eventAttachment = z.looseObject({
    url: k.str,
    name: opt,
    mimetype: opt,
    /** Bytes. */
    size: k.num.nullish(),
    sha1: opt,
  });

  /** The ad of a cian or avito chat; samples also carry `externalId`. */
  const advert = z.looseObject({
    id: k.id,
    url: opt,
    sha1: opt,
    type: opt,
    price: opt,
    title: opt,
    userId: optId,
    locationTitle: opt,
    externalId: optId,
  });

  /** The chat of a message.add: the contact of a dialog, or the group (without members). */
  const eventRecipient = z.looseObject({
    chat_type: chatType,
    chat_id: optId,
    username: opt,
    phone: opt,
    /** For cian and avito chats; otherwise null. */
    profile_id: optId,
    /** The ad, for cian and avito chats; otherwise null. */
    advert: advert.nullish(),
    avatar: opt,
    name: opt,
  });

  /** Advertising data of a wapi client who came through an ad button. */
  const referral = z.looseObject({
    source_url: opt,
    source_type: k.oneOf(['ad', 'post'] as const).nullish(),
    source_id: optId,
    headline: opt,
    body: opt,
    media_type: k.oneOf(['image', 'video'] as const).nullish(),
    image_url: opt,
    video_url: opt,
    thumbnail_url: opt,
    ctwa_clid: opt,
  });

  /** message.add: an inbound message received, or an outbound one registered. */
  const messageAdd = z.looseObject({
    message_id: k.id,
    chat_id: optId,
    channel_id: k.id,
    direction: k.oneOf(['inbound', 'outbound'] as const),
    quoted_message_id: optId,
    /** Unix time; samples carry milliseconds. */
    timestamp: k.num,
    status: k.oneOf(MESSAGE_STATUSES),
    crm_user_id: optId,
    /** The sender inside a group chat. */
    sender: z
      .looseObject({ chat_type: chatType, chat_id: k.id, name: opt, username: opt, phone: opt })
      .nullish(),
    recipient: eventRecipient,
    text: opt,
    attachment: eventAttachment.nullish(),
    template: z
      .looseObject({
        id: k.id,
        values: z.array(k.str).nullish(),
        buttons: z.array(z.looseObject({ text: opt, payload: opt })).nullish(),
      })
      .nullish(),
    referral: referral.nullish(),
  });

  /** message.status_update: the outcome of a send, joined to it by `request_id`. */
  const messageStatusUpdate = z.looseObject({
    message_id: optId,
    /** The id the send call returned. */
    request_id: optId,
    status: k.oneOf(MESSAGE_STATUSES),
    /** null unless status is failed; then a code of the spec's failure reasons. */
    reason: k.oneOf(FAILURE_REASONS).nullish(),
  });

  /** message.delete. */
  const messageDelete = z.looseObject({
    message_id: k.id,
    crm_user_id: optId,
    /** Unix milliseconds. */
    timestamp: k.num,
  });

  /** message.edit: only for channels that support editing. */
  const messageEdit = z.looseObject({
    message_id: k.id,
    crm_user_id: optId,
    /** Unix milliseconds. */
    timestamp: k.num,
    text: opt,
    old_text: opt,
    attachment: eventAttachment.nullish(),
    old_attachment: eventAttachment.nullish(),
  });

  /** waba_template.status_update: template moderation. */
  const wabaTemplateStatusUpdate = z.looseObject({
    template_id: k.id,
    status: k.oneOf(TEMPLATE_STATUSES),
    timestamp: k.num.nullish(),
  });

  /** channel.status_update. */
  const channelStatusUpdate = z.looseObject({
    channel_id: k.id,
    status: k.oneOf(CHANNEL_STATUSES),
    reason: k.oneOf(CHANNEL_REASONS).nullish(),
  });

  /** channel.create and channel.delete. */
  const channelLifecycle = z.looseObject({
    channel_id: k.id,
    /** Unix milliseconds. */
    timestamp: k.num.nullish(),
  });

  /** channel.qr_update: a new QR to show the client (see `qrToPng`). */
  const channelQrUpdate = z.looseObject({
    channel_id: k.id,
    /** An image data URL with a base64 PNG. */
    qr_code: k.str,
    platform: k.oneOf(['whatsapp', 'telegram_api', 'viber'] as const).nullish(),
  });

  /** channel.waba_tier_update. */
  const channelWabaTierUpdate = z.looseObject({ channel_id: k.id, tier: k.oneOf(TIERS) });

  /** group_chat.memberships_update. */
  const groupChatMembershipsUpdate = z.looseObject({
    group_id: k.id,
    members: z.array(
      z.looseObject({
        group_member_id: k.id,
        name: opt,
        avatar_url: opt,
        status: k.oneOf(MEMBER_STATUSES),
      }),
    ),
  });

  /** A chat of a CRM contact request. */
  const contactChat = z.looseObject({ chat_type: chatType, chat_id: optId, username: opt, phone: opt });

  /** crm_entities.contact_add: the CRM must create a contact and reply with it. */
  const crmContactAdd = z.looseObject({
    responsible_user_id: optId,
    name: opt,
    recipient: z.array(contactChat).nullish(),
    source: source.nullish(),
  });

  /** crm_entities.deal_add: the CRM must create a deal and reply with it. */
  const crmDealAdd = z.looseObject({
    responsible_user_id: optId,
    pipeline_id: optId,
    stage_id: optId,
    contacts: z.array(k.id).nullish(),
    source: source.nullish(),
  });

  /** A payload the spec does not show (group_chat.update, messages_dump.status_update, channel.update). */
  const unshownPayload = z.looseObject({});

  /** The payload schema of every v2 event kind. */
  const payloads = {
    'message.add': messageAdd,
    'message.status_update': messageStatusUpdate,
    'message.delete': messageDelete,
    'message.edit': messageEdit,
    'waba_template.status_update': wabaTemplateStatusUpdate,
    'channel.status_update': channelStatusUpdate,
    'channel.create': channelLifecycle,
    'channel.delete': channelLifecycle,
    'channel.qr_update': channelQrUpdate,
    'channel.waba_tier_update': channelWabaTierUpdate,
    'group_chat.memberships_update': groupChatMembershipsUpdate,
    'group_chat.update': unshownPayload,
    'crm_entities.contact_add': crmContactAdd,
    'crm_entities.deal_add': crmDealAdd,
    'messages_dump.status_update': unshownPayload,
    'channel.update': unshownPayload,
  } as const;

  /** Envelope metadata of a v2 delivery. */
  const webhookMeta = z.looseObject({
    /** Unique per delivery (documented as a UUIDv4); the key of deduplication. */
    idempotency_key: k.id,
    /** Unix time in seconds. */
    timestamp: k.num.nullish(),
  });
  return { payloads, webhookMeta, eventAttachment, advert, eventRecipient, referral, contactChat };
}

const lenient = buildV2(lenientKit);
/** The strict build: the fast path of decoding (internal). */
export const V2_STRICT = buildV2(strictKit);

/** The payload schema of every v2 event kind (lenient). */
export const V2_PAYLOADS = lenient.payloads;
/** Envelope metadata of a v2 delivery. */
export const webhookMeta = lenient.webhookMeta;
/** message.add payload schema. */
export const messageAdd = V2_PAYLOADS['message.add'];
/** message.status_update payload schema. */
export const messageStatusUpdate = V2_PAYLOADS['message.status_update'];
/** crm_entities.contact_add payload schema. */
export const crmContactAdd = V2_PAYLOADS['crm_entities.contact_add'];
/** crm_entities.deal_add payload schema. */
export const crmDealAdd = V2_PAYLOADS['crm_entities.deal_add'];

/** Envelope metadata of a v2 delivery. */
export type WebhookMeta = z.output<typeof webhookMeta>;

type Payloads = typeof V2_PAYLOADS;
/** The name of a v2 event kind this SDK knows. */
export type KnownV2Event = keyof Payloads;
/** The payload type of one v2 event kind. */
export type V2Payload<E extends KnownV2Event> = z.output<Payloads[E]>;

/** A decoded v2 delivery of one known kind: `data` holds that kind's payloads. */
export type V2WebhookOf<E extends KnownV2Event> = {
  api: 'v2';
  event: E;
  data: V2Payload<E>[];
  meta: WebhookMeta;
};

/**
 * A v2 delivery of a kind this SDK does not know yet. Its `event` is the word `unknown` (no event
 * of the spec is named so), so a `switch` on `event` never confuses it with a known kind; the name
 * it came with is kept in `unknownEvent`, and its data as it came.
 */
export type UnknownV2Webhook = {
  api: 'v2';
  event: 'unknown';
  unknownEvent: string;
  data: unknown[];
  meta: WebhookMeta;
};

/** Any decoded v2 delivery: a discriminated union on `event`. */
export type V2Webhook = { [E in KnownV2Event]: V2WebhookOf<E> }[KnownV2Event] | UnknownV2Webhook;

/** message.add payload. */
export type MessageAdd = V2Payload<'message.add'>;
/** message.status_update payload. */
export type MessageStatusUpdate = V2Payload<'message.status_update'>;
/** message.delete payload. */
export type MessageDelete = V2Payload<'message.delete'>;
/** message.edit payload. */
export type MessageEdit = V2Payload<'message.edit'>;
/** waba_template.status_update payload. */
export type WabaTemplateStatusUpdate = V2Payload<'waba_template.status_update'>;
/** channel.status_update payload. */
export type ChannelStatusUpdate = V2Payload<'channel.status_update'>;
/** channel.create / channel.delete payload. */
export type ChannelLifecycle = V2Payload<'channel.create'>;
/** channel.qr_update payload. */
export type ChannelQrUpdate = V2Payload<'channel.qr_update'>;
/** channel.waba_tier_update payload. */
export type ChannelWabaTierUpdate = V2Payload<'channel.waba_tier_update'>;
/** group_chat.memberships_update payload. */
export type GroupChatMembershipsUpdate = V2Payload<'group_chat.memberships_update'>;
/** crm_entities.contact_add payload. */
export type CrmContactAdd = V2Payload<'crm_entities.contact_add'>;
/** crm_entities.deal_add payload. */
export type CrmDealAdd = V2Payload<'crm_entities.deal_add'>;
