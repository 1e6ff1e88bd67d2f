/**
 * Webhook events of API v2 (spec: Events), in the spec's order. Decoding checks structure and
 * tolerates values: ids are unformatted strings (numbers decode to strings), enumerations are
 * case-insensitive and keep unknown values, optional fields may be null or absent, unknown fields
 * are kept at run time. An item is required to carry only what identifies or routes it; every
 * field that merely describes it is optional.
 * @module
 */
import type * as z from 'zod/mini';
import type { Issue } from '../core/errors.js';
import { CHANNEL_REASONS, CHANNEL_STATUSES, CHAT_TYPES, TIERS, type V2_EVENTS } from './constants.js';
import { type Kit, lazy, zodKit } from './kit.js';
import { FAILURE_REASON_PREFIXES, FAILURE_REASONS, type MessageFailureReason } from './reasons.js';

/** Outbound message statuses (spec: States → Outbound message status), in order. */
export const MESSAGE_STATUSES = ['accepted', 'sent', 'delivered', 'read', 'failed'] as const;
/** Template moderation statuses (spec: States → Template moderation status). */
export const TEMPLATE_STATUSES = ['APPROVED', 'PENDING', 'REJECTED', 'PAUSED', 'DISABLED'] as const;
/** Group member statuses (spec: States → Group member status). */
export const MEMBER_STATUSES = ['in_group', 'invited', 'unknown', 'deleted', 'not_exists'] as const;
/** Chat types as delivered: the send list plus `cian`, seen in samples. */
export const EVENT_CHAT_TYPES = [...CHAT_TYPES, 'cian'] as const;

/**
 * A failure reason: the spec's whole names, and the names it leaves open (`waba_rejected_by_…`),
 * decode case-insensitively to its lower-case spelling; any other string is kept as it came. Typed with the open names
 * as template literals, so `switch (reason)` is checked.
 */
const failureReason = (k: Kit) =>
  k.oneOf(FAILURE_REASONS, FAILURE_REASON_PREFIXES) as unknown as z.ZodMiniTransform<
    MessageFailureReason,
    unknown
  >;

/** Builds the pieces shared by several v2 events. */
function buildParts(k: Kit) {
  const opt = k.opt(k.str);
  const optId = k.opt(k.id);
  return {
    opt,
    optId,
    chatType: k.oneOf(EVENT_CHAT_TYPES),
    source: k.opt(k.oneOf(['auto', 'by_user'] as const)),
    attachment: k.obj({
      /** Direct link to the file. */
      url: k.str,
      /** File name. */
      name: opt,
      /** MIME type. */
      mimetype: opt,
      /** File size in bytes. */
      size: k.opt(k.num),
      /** SHA-1 hash, hex. */
      sha1: opt,
    }),
  };
}

/** Builds the message.* payloads (spec: Events → message.add … message.edit). */
function buildMessages(k: Kit) {
  const { opt, optId, chatType, attachment } = buildParts(k);
  const advert = k.obj({
    /** Ad id. */
    id: k.id,
    /** Ad link. */
    url: opt,
    sha1: opt,
    type: opt,
    /** Price, as a string. */
    price: opt,
    title: opt,
    userId: optId,
    locationTitle: opt,
    /** Seen in samples, not in the spec's table. */
    externalId: optId,
  });
  const referral = k.obj({
    source_url: opt,
    /** `ad` or `post`. */
    source_type: k.opt(k.oneOf(['ad', 'post'] as const)),
    source_id: optId,
    headline: opt,
    body: opt,
    /** `image` or `video`. */
    media_type: k.opt(k.oneOf(['image', 'video'] as const)),
    /** With media_type image. */
    image_url: opt,
    /** With media_type video. */
    video_url: opt,
    /** With media_type video. */
    thumbnail_url: opt,
    ctwa_clid: opt,
  });
  const recipient = k.obj({
    /** Chat type: the send list, plus `cian` (seen in samples). */
    chat_type: chatType,
    /** Chat id; for telegram and max it differs from the phone number. */
    chat_id: optId,
    /** Telegram chats only, without a leading @. */
    username: opt,
    /** International format, digits only (a number in some deliveries: decoded to its string). */
    phone: opt,
    /** For cian and avito chats; otherwise null. */
    profile_id: optId,
    /** The ad, for cian and avito chats; otherwise null. */
    advert: k.opt(advert),
    /** Avatar link (seen in samples). */
    avatar: opt,
    /** Contact or group name (seen in samples). */
    name: opt,
  });
  const sender = k.obj({
    chat_type: chatType,
    chat_id: k.id,
    name: opt,
    /** Telegram only. */
    username: opt,
    phone: opt,
  });
  const template = k.obj({
    /** Id of the approved template. */
    id: k.id,
    /** Values of the template variables. */
    values: k.opt(k.list(k.str)),
    /** Buttons, each with text and payload. */
    buttons: k.opt(k.list(k.obj({ text: opt, payload: opt }))),
  });
  const messageAdd = k.obj({
    /** Message id. */
    message_id: k.id,
    /** Chat id at the top level of the message (in samples, not in the spec's table). */
    chat_id: optId,
    /** Channel id. */
    channel_id: k.id,
    /** `inbound` (from the contact) or `outbound` (an echo of a message sent from the CRM or the app). */
    direction: k.oneOf(['inbound', 'outbound'] as const),
    /** The quoted message. */
    quoted_message_id: optId,
    /** When the message was sent: Unix time in milliseconds. */
    timestamp: k.opt(k.num),
    /** Always `accepted` when present; deliveries may leave it out. */
    status: k.opt(k.oneOf(MESSAGE_STATUSES)),
    /** CRM user who sent it. */
    crm_user_id: optId,
    /** The sender inside a group chat of the whatsapp, telegram or max kind. */
    sender: k.opt(sender),
    /** The chat: the contact of a dialog, or the group (without members). */
    recipient,
    /** Message text. */
    text: opt,
    /** The file of the message. */
    attachment: k.opt(attachment),
    /** The template of a wapi message. */
    template: k.opt(template),
    /** Advertising data of a wapi client who came through an ad button. */
    referral: k.opt(referral),
  });
  const messageStatusUpdate = k.obj(
    {
      /** Real id of the message; null before the messenger gave one. */
      message_id: optId,
      /** The id the send call returned. */
      request_id: optId,
      /** `accepted`, `sent`, `delivered`, `read` or `failed`. */
      status: k.oneOf(MESSAGE_STATUSES),
      /** null unless status is `failed`; then a failure reason of the spec (see `FAILURE_REASONS`). */
      reason: k.opt(failureReason(k)),
    },
    { anyOf: ['message_id', 'request_id'] },
  );
  const messageDelete = k.obj({
    /** Id of the deleted message. */
    message_id: k.id,
    /** CRM user who deleted it. */
    crm_user_id: optId,
    /** When it was deleted: Unix time in milliseconds. */
    timestamp: k.opt(k.num),
  });
  const messageEdit = k.obj({
    /** Id of the edited message. */
    message_id: k.id,
    /** CRM user who edited it. */
    crm_user_id: optId,
    /** When it was edited: Unix time in milliseconds. */
    timestamp: k.opt(k.num),
    /** The new text. */
    text: opt,
    /** The text before the edit. */
    old_text: opt,
    /** The new file. */
    attachment: k.opt(attachment),
    /** The file before the edit. */
    old_attachment: k.opt(attachment),
  });
  return { messageAdd, messageStatusUpdate, messageDelete, messageEdit, recipient, advert, referral };
}

/** Builds the channel.* and template payloads (spec: Events → waba_template … channel.waba_tier_update). */
function buildChannels(k: Kit) {
  const { opt } = buildParts(k);
  const wabaTemplateStatusUpdate = k.obj({
    /** Template id. */
    template_id: k.id,
    /** APPROVED, PENDING, REJECTED, PAUSED or DISABLED. */
    status: k.oneOf(TEMPLATE_STATUSES),
    /** When the status changed: Unix time in milliseconds. */
    timestamp: k.opt(k.num),
  });
  const channelStatusUpdate = k.obj({
    /** Channel id. */
    channel_id: k.id,
    /** `active`, `init` or `disabled`. */
    status: k.oneOf(CHANNEL_STATUSES),
    /** Why: `wait_for_password`, `qr`, `not_enough_money`, …; null for active. */
    reason: k.opt(k.oneOf(CHANNEL_REASONS)),
  });
  const channelLifecycle = k.obj({
    /** Channel id. */
    channel_id: k.id,
    /** When it was created or removed: Unix time in milliseconds. */
    timestamp: k.opt(k.num),
  });
  const channelQrUpdate = k.obj({
    /** Channel id. */
    channel_id: k.id,
    /** The QR to show the client: an image data URL with a base64 PNG (see `qrToPng`). */
    qr_code: k.str,
    /** `whatsapp`, `telegram_api` or `viber`. */
    platform: k.opt(k.oneOf(['whatsapp', 'telegram_api', 'viber'] as const)),
  });
  const channelWabaTierUpdate = k.obj({
    /** Channel id. */
    channel_id: k.id,
    /** TIER_0 (250 conversations a day) … TIER_UNLIMITED. */
    tier: k.oneOf(TIERS),
  });
  const groupMember = k.obj({
    /** Member id. */
    group_member_id: k.id,
    /** Member name. */
    name: opt,
    /** Avatar link. */
    avatar_url: opt,
    /** in_group, invited, unknown, deleted or not_exists. */
    status: k.opt(k.oneOf(MEMBER_STATUSES)),
  });
  const groupChatMembershipsUpdate = k.obj({
    /** Group id. */
    group_id: k.id,
    /** The group's members. */
    members: k.opt(k.list(groupMember)),
  });
  return {
    wabaTemplateStatusUpdate,
    channelStatusUpdate,
    channelLifecycle,
    channelQrUpdate,
    channelWabaTierUpdate,
    groupChatMembershipsUpdate,
  };
}

/** Builds the CRM requests (spec: Events → crm_entities.contact_add, deal_add). */
function buildCrm(k: Kit) {
  const { opt, optId, chatType, source } = buildParts(k);
  const contactChat = k.obj({
    /** May be missing: an incomplete chat is kept as it came; the responder decides. */
    chat_type: k.opt(chatType),
    chat_id: optId,
    /** Telegram only. */
    username: opt,
    phone: opt,
  });
  const crmContactAdd = k.obj({
    /** Responsible CRM user. */
    responsible_user_id: optId,
    /** Contact name. */
    name: opt,
    /** The chats of the contact. */
    recipient: k.opt(k.list(contactChat)),
    /** `auto` (on a message) or `by_user` (a button). */
    source,
  });
  const crmDealAdd = k.obj({
    /** Responsible CRM user. */
    responsible_user_id: optId,
    /** Pipeline. */
    pipeline_id: optId,
    /** Stage. */
    stage_id: optId,
    /** Contact ids. */
    contacts: k.opt(k.list(k.id)),
    /** `auto` (on a message) or `by_user` (a button). */
    source,
  });
  return { crmContactAdd, crmDealAdd };
}

/**
 * Builds every v2 schema from a kit of field helpers: with `zodKit` the public schemas (and the
 * types), with the decoder's check kit its fast check.
 */
export function buildV2(k: Kit) {
  const m = buildMessages(k);
  const c = buildChannels(k);
  const crm = buildCrm(k);
  const { optId } = buildParts(k);
  /** A payload the spec does not show (group_chat.update, messages_dump.status_update, channel.update). */
  const unshown = k.obj({});
  const payloads = {
    'message.add': m.messageAdd,
    'message.status_update': m.messageStatusUpdate,
    'message.delete': m.messageDelete,
    'message.edit': m.messageEdit,
    'waba_template.status_update': c.wabaTemplateStatusUpdate,
    'channel.status_update': c.channelStatusUpdate,
    'channel.create': c.channelLifecycle,
    'channel.delete': c.channelLifecycle,
    'channel.qr_update': c.channelQrUpdate,
    'channel.waba_tier_update': c.channelWabaTierUpdate,
    'group_chat.memberships_update': c.groupChatMembershipsUpdate,
    'group_chat.update': unshown,
    'crm_entities.contact_add': crm.crmContactAdd,
    'crm_entities.deal_add': crm.crmDealAdd,
    'messages_dump.status_update': unshown,
    'channel.update': unshown,
  };
  const webhookMeta = k.obj({
    /**
     * Unique per delivery (documented as a UUIDv4): the key of deduplication. Without it (or
     * blank) the delivery is processed without dedupe.
     */
    idempotency_key: optId,
    /** When the delivery was made: Unix time in seconds. May be missing. */
    timestamp: k.opt(k.num),
  });
  return { payloads, webhookMeta, recipient: m.recipient, advert: m.advert, referral: m.referral };
}

/** The zod schemas of v2 events, built on first use (an import does not pay for them). */
export const v2Schemas = lazy(() => buildV2(zodKit));
type V2Schemas = ReturnType<typeof buildV2>;
type Payloads = V2Schemas['payloads'];

/** Envelope metadata of a v2 delivery (spec: Events → Envelope). */
export type WebhookMeta = z.output<V2Schemas['webhookMeta']>;
/** The name of a v2 event kind this SDK knows. */
export type KnownV2Event = keyof Payloads;
// Every event name of the subscriptions list has a payload schema here, and no other.
type SameNames = [KnownV2Event] extends [(typeof V2_EVENTS)[number]]
  ? [(typeof V2_EVENTS)[number]] extends [KnownV2Event]
    ? true
    : never
  : never;
const sameNames: SameNames = true;
void sameNames;
/** The payload type of one v2 event kind. */
export type V2Payload<E extends KnownV2Event> = z.output<Payloads[E]>;

/**
 * An item of a delivery that could not be decoded: the rest of the delivery is decoded without
 * it. The handler reports each one on `'error'`.
 */
export interface RejectedItem {
  /** The list it came from: `data` (v2), or `messages`, `statuses`, `channelsUpdates` (v3). */
  list: string;
  /** Its position in that list. */
  index: number;
  /**
   * What is wrong with it, each with its path (e.g. `data[3].recipient.chat_type`). At most 100
   * issues are kept for one delivery: items past that carry an empty list.
   */
  issues: Issue[];
  /** The item as it came. */
  raw: unknown;
}

/** A decoded v2 delivery of one known kind: `data` holds that kind's payloads. */
export interface V2WebhookOf<E extends KnownV2Event> {
  /** The surface that sent it. */
  api: 'v2';
  /** The event kind. */
  event: E;
  /** The items that decoded, in their order. */
  data: V2Payload<E>[];
  /** The items that did not decode (empty when all did). */
  rejected: RejectedItem[];
  /** Envelope metadata. */
  meta: WebhookMeta;
}

/**
 * A v2 delivery of a kind this SDK does not know yet. Its `event` is the word `unknown` (no event
 * of the spec is named so), so a `switch` on `event` never confuses it with a known kind; the name
 * it came with is kept in `unknownEvent`, and its data as it came.
 */
export interface UnknownV2Webhook {
  /** The surface that sent it. */
  api: 'v2';
  /** Always `unknown`. */
  event: 'unknown';
  /** The event name as it came. */
  unknownEvent: string;
  /** The items as they came. */
  data: unknown[];
  /** Always empty: unknown items are not checked. */
  rejected: RejectedItem[];
  /** Envelope metadata. */
  meta: WebhookMeta;
}

/** Any decoded v2 delivery: a discriminated union on `event`. */
export type V2Webhook = { [E in KnownV2Event]: V2WebhookOf<E> }[KnownV2Event] | UnknownV2Webhook;

/** message.add payload: an inbound message received, or an outbound one registered. */
export type MessageAdd = V2Payload<'message.add'>;
/** message.status_update payload: the outcome of a send, joined to it by `request_id`. */
export type MessageStatusUpdate = V2Payload<'message.status_update'>;
/** message.delete payload. */
export type MessageDelete = V2Payload<'message.delete'>;
/** message.edit payload (only for channels that support editing). */
export type MessageEdit = V2Payload<'message.edit'>;
/** waba_template.status_update payload: template moderation. */
export type WabaTemplateStatusUpdate = V2Payload<'waba_template.status_update'>;
/** channel.status_update payload. */
export type ChannelStatusUpdate = V2Payload<'channel.status_update'>;
/** channel.create / channel.delete payload. */
export type ChannelLifecycle = V2Payload<'channel.create'>;
/** channel.qr_update payload: a new QR to show the client. */
export type ChannelQrUpdate = V2Payload<'channel.qr_update'>;
/** channel.waba_tier_update payload. */
export type ChannelWabaTierUpdate = V2Payload<'channel.waba_tier_update'>;
/** group_chat.memberships_update payload. */
export type GroupChatMembershipsUpdate = V2Payload<'group_chat.memberships_update'>;
/** crm_entities.contact_add payload: the CRM must create a contact and reply with it. */
export type CrmContactAdd = V2Payload<'crm_entities.contact_add'>;
/** crm_entities.deal_add payload: the CRM must create a deal and reply with it. */
export type CrmDealAdd = V2Payload<'crm_entities.deal_add'>;
/** The chat of a message.add. */
export type EventRecipient = z.output<V2Schemas['recipient']>;
