/**
 * Webhook payloads of API v3 (spec: API v3 webhook deliveries): camelCase, one property per kind.
 * Read with the same tolerance as v2 (DESIGN.md, Webhooks → Decoding).
 * @module
 */
import { z } from 'zod';
import { TIERS } from './channels.js';
import { EVENT_CHAT_TYPES, TEMPLATE_STATUSES } from './events-v2.js';
import { type Kit, lenientKit, strictKit } from './lenient.js';

/** Message types of v3 (anything else is kept as it came). */
export const V3_MESSAGE_TYPES = [
  'text',
  'image',
  'audio',
  'video',
  'document',
  'vcard',
  'geo',
  'wapi_template',
  'unsupported',
  'missing_call',
  'unknown',
] as const;
/** Message statuses of v3 messages; `inbound` marks an inbound message. */
export const V3_MESSAGE_STATUSES = ['sent', 'delivered', 'read', 'error', 'inbound'] as const;
/** Status update values of v3; `edited` reports an edit made in the messenger itself. */
export const V3_STATUS_VALUES = ['sent', 'delivered', 'read', 'error', 'edited'] as const;
/** Error codes of v3 messages (spec: messages → error.error codes). */
export const V3_ERROR_CODES = [
  'BAD_CONTACT',
  'CHATID_IGSID_MISMATCH',
  'TOO_LONG_TEXT',
  'BAD_LINK',
  'TOO_BIG_CONTENT',
  'SPAM',
  'TOO_MANY_EXT_REQS',
  'WRONG_CONTENT',
  'MESSAGE_CANCELLED',
  '24_HOURS_EXCEEDED',
  'COMMENT_DELETED',
  'MENTION_FORBIDDEN',
  'CONTENT_CONVERSION_ERROR',
  'MESSAGE_DELETED',
  'CHANNEL_REJECTED',
  '7_DAYS_EXCEEDED',
  'COMMENT_ALREADY_PRIVATE_REPLIED',
  'COMMENT_INVALID_FOR_PRIVATE_REPLY',
  'COMMENT_CAN_BE_TEXT_ONLY',
  'CANNOT_REPLY_TO_DELETED',
  'GENERAL_ERROR',
  'UNKNOWN_ERROR',
] as const;
/** Channel states of v3 (spec: States → Channel state (API v3)). */
export const V3_CHANNEL_STATES = [
  'active',
  'disabled',
  'qr',
  'phoneUnavailable',
  'openElsewhere',
  'notEnoughMoney',
  'unauthorized',
] as const;

/**
 * Builds the v3 payload schemas from a kit of field helpers: once lenient (the public schemas and
 * the types), once strict (the fast path of decoding).
 */
function buildV3(k: Kit) {
  const opt = k.str.nullish();
  const optId = k.id.nullish();
  const optBool = k.bool.nullish();
  /** The error of a message or status whose status is `error`. */
  const v3Error = z.looseObject({
    /** The code, e.g. BAD_CONTACT; unknown codes are kept. */
    error: k.oneOf(V3_ERROR_CODES).nullish(),
    description: opt,
    data: z.unknown().optional(),
  });

  /** One message of a `messages` delivery. */
  const v3Message = z.looseObject({
    messageId: k.id,
    channelId: k.id,
    chatType: k.oneOf(EVENT_CHAT_TYPES),
    chatId: k.id,
    /** Constant per avito account, unlike chatId. */
    avitoProfileId: optId,
    /** Time in the messenger, `yyyy-mm-ddThh:mm:ss.ms`. */
    dateTime: opt,
    type: k.oneOf(V3_MESSAGE_TYPES),
    /** false for inbound, true for outbound. */
    isEcho: k.bool,
    contact: z.looseObject({ name: opt, avatarUri: opt, username: opt, phone: opt }).nullish(),
    text: opt,
    contentUri: opt,
    status: k.oneOf(V3_MESSAGE_STATUSES),
    error: v3Error.nullish(),
    authorName: opt,
    authorId: optId,
    instPost: z.looseObject({}).nullish(),
    interactive: z.array(z.unknown()).nullish(),
    quotedMessage: z.looseObject({}).nullish(),
    sentFromApp: optBool,
    isEdited: optBool,
    isDeleted: optBool,
    oldInfo: z.looseObject({ oldText: opt, oldAuthorId: optId, oldAuthorName: opt }).nullish(),
  });
  /** One item of a `statuses` delivery. */
  const v3Status = z.looseObject({
    messageId: k.id,
    /** When the status update was received. */
    timestamp: opt,
    status: k.oneOf(V3_STATUS_VALUES),
    error: v3Error.nullish(),
  });
  const v3Source = k.oneOf(['auto', 'byUser'] as const).nullish();

  /** `createContact`: the CRM must create a contact and answer with it. */
  const v3CreateContact = z.looseObject({
    responsibleUserId: optId,
    name: opt,
    contactData: z.array(z.looseObject({ chatType: k.oneOf(EVENT_CHAT_TYPES), chatId: optId })).nullish(),
    source: v3Source,
  });
  /** `createDeal`: the CRM must create a deal and answer with it. */
  const v3CreateDeal = z.looseObject({
    responsibleUserId: optId,
    contacts: z.array(k.id).nullish(),
    source: v3Source,
  });
  /** One item of a `channelsUpdates` delivery. */
  const v3ChannelUpdate = z.looseObject({
    channelId: k.id,
    state: k.oneOf(V3_CHANNEL_STATES),
    /** wapi channels only. */
    tier: k.oneOf(TIERS).nullish(),
    /** Base64 QR code, present only when state is qr (see `qrToPng`). */
    qr: opt,
    qridle: opt,
    /** When the state was set, Unix milliseconds. */
    timestamp: k.num.nullish(),
  });
  /** `templateStatus`: moderation of a template. */
  const v3TemplateStatus = z.looseObject({
    templateGuid: k.id,
    name: opt,
    status: k.oneOf(TEMPLATE_STATUSES),
  });

  return { v3Error, v3Message, v3Status, v3CreateContact, v3CreateDeal, v3ChannelUpdate, v3TemplateStatus };
}

const lenient = buildV3(lenientKit);
/** The strict build: the fast path of decoding (internal). */
export const V3_STRICT = buildV3(strictKit);
/** The error of a v3 message or status whose status is `error`. */
export const v3Error = lenient.v3Error;
/** One message of a `messages` delivery. */
export const v3Message = lenient.v3Message;
/** One item of a `statuses` delivery. */
export const v3Status = lenient.v3Status;
/** `createContact`: the CRM must create a contact and answer with it. */
export const v3CreateContact = lenient.v3CreateContact;
/** `createDeal`: the CRM must create a deal and answer with it. */
export const v3CreateDeal = lenient.v3CreateDeal;
/** One item of a `channelsUpdates` delivery. */
export const v3ChannelUpdate = lenient.v3ChannelUpdate;
/** `templateStatus`: moderation of a template. */
export const v3TemplateStatus = lenient.v3TemplateStatus;

/** One message of a v3 `messages` delivery. */
export type V3Message = z.output<typeof v3Message>;
/** One item of a v3 `statuses` delivery. */
export type V3Status = z.output<typeof v3Status>;
/** A v3 `createContact` request. */
export type V3CreateContact = z.output<typeof v3CreateContact>;
/** A v3 `createDeal` request. */
export type V3CreateDeal = z.output<typeof v3CreateDeal>;
/** One item of a v3 `channelsUpdates` delivery. */
export type V3ChannelUpdate = z.output<typeof v3ChannelUpdate>;
/** A v3 `templateStatus` delivery. */
export type V3TemplateStatus = z.output<typeof v3TemplateStatus>;

/** A decoded v3 delivery: a discriminated union on `type`. */
export type V3Webhook =
  | { api: 'v3'; type: 'messagesAndStatuses'; messages: V3Message[]; statuses: V3Status[] }
  | { api: 'v3'; type: 'createContact'; createContact: V3CreateContact }
  | { api: 'v3'; type: 'createDeal'; createDeal: V3CreateDeal }
  | { api: 'v3'; type: 'channelsUpdates'; channelsUpdates: V3ChannelUpdate[] }
  | { api: 'v3'; type: 'templateStatus'; templateStatus: V3TemplateStatus }
  /** The service's `{ test: true }` probe, sent when the v3 settings are changed. */
  | { api: 'v3'; type: 'test'; test: true };

/** The `type` of a v3 delivery. */
export type V3WebhookType = V3Webhook['type'];
