/**
 * Webhook payloads of API v3 (spec: API v3 webhook deliveries): camelCase, one property per kind.
 * Read with the same tolerance as v2: an item needs only what identifies it, every descriptive
 * field is optional, unknown fields are kept at run time.
 * @module
 */
import type * as z from 'zod/mini';
import { TIERS } from './constants.js';
import { EVENT_CHAT_TYPES, type RejectedItem, TEMPLATE_STATUSES } from './events-v2.js';
import { type Kit, lazy, zodKit } from './kit.js';

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

/** Builds the parts of `messages` (spec: API v3 webhook deliveries → messages). */
function buildMessageParts(k: Kit) {
  const opt = k.opt(k.str);
  const optId = k.opt(k.id);
  const error = k.obj({
    /** The code, e.g. BAD_CONTACT (see `V3_ERROR_CODES`); unknown codes are kept. */
    error: k.opt(k.oneOf(V3_ERROR_CODES)),
    /** Short English description. */
    description: opt,
    /** Details, when the service gives them. */
    data: k.opt(k.unknown),
  });
  const contact = k.obj({
    /** Contact name. */
    name: opt,
    /** Avatar link, when the service has one. */
    avatarUri: opt,
    /** Telegram only. */
    username: opt,
    /** Telegram and max: international format. */
    phone: opt,
  });
  const oldInfo = k.obj({
    /** The text before the edit or deletion. */
    oldText: opt,
    /** The original author's CRM user id. */
    oldAuthorId: optId,
    /** The original author's name. */
    oldAuthorName: opt,
  });
  // spec: API v3 webhook deliveries → instPost fields. Types the spec leaves open (the author, the
  // times) are kept as they came, so an unexpected shape never costs the message it rides on.
  const instPost = k.obj({
    /** The post's id. */
    id: optId,
    /** Link to the post. */
    src: opt,
    /** Checksum of the post's content. */
    sha1: opt,
    /** Number of likes. */
    likes: k.opt(k.num),
    /** Number of comments. */
    comments: k.opt(k.num),
    /** The post's author, as the service gives it (its shape is not documented). */
    author: k.opt(k.unknown),
    /** When the post was made, as the service gives it (its format is not documented). */
    timestamp: k.opt(k.unknown),
    /** When the post was last changed, as the service gives it. */
    updatedAt: k.opt(k.unknown),
    /** The author's name. */
    authorName: opt,
    /** The author's id. */
    authorId: optId,
    /** The post's caption. */
    description: opt,
    /** Checksum of the preview. */
    previewSha1: opt,
    /** Link to the image. */
    imageSrc: opt,
    /** Link to the preview. */
    previewSrc: opt,
  });
  return { opt, optId, error, contact, oldInfo, instPost };
}

/** Builds every v3 schema from a kit of field helpers (see `buildV2`). */
export function buildV3(k: Kit) {
  const { opt, optId, error, contact, oldInfo, instPost } = buildMessageParts(k);
  const optBool = k.opt(k.bool);
  const source = k.opt(k.oneOf(['auto', 'byUser'] as const));
  const message = k.obj({
    /** Message id. */
    messageId: k.id,
    /** Channel id (edited and deleted messages may come without it). */
    channelId: optId,
    /** Chat type: the same values as v2's chat_type. */
    chatType: k.oneOf(EVENT_CHAT_TYPES),
    /** Chat id; for telegram and max an id given in inbound hooks. */
    chatId: k.id,
    /** Profile id of an avito account: constant per account, unlike chatId. */
    avitoProfileId: optId,
    /** Time in the messenger, `yyyy-mm-ddThh:mm:ss.ms`. */
    dateTime: opt,
    /** text, image, audio, video, document, vcard, geo, wapi_template, unsupported, missing_call, unknown. */
    type: k.opt(k.oneOf(V3_MESSAGE_TYPES)),
    /** false for inbound, true for outbound (echo). */
    isEcho: optBool,
    /** The contact. */
    contact: k.opt(contact),
    /** Message text; may be absent when the message has content. */
    text: opt,
    /** Link to the content. */
    contentUri: opt,
    /** sent, delivered, read, error, or inbound (an inbound message). */
    status: k.opt(k.oneOf(V3_MESSAGE_STATUSES)),
    /** Present when status is error. */
    error: k.opt(error),
    /** Author name; only for isEcho true. */
    authorName: opt,
    /** CRM user id of the author. */
    authorId: optId,
    /** Post of a photo social network, for a comment. */
    instPost: k.opt(instPost),
    /** Buttons of a CRM automation bot attached to the message. */
    interactive: k.opt(k.list(k.unknown)),
    /** Parameters of the quoted message. */
    quotedMessage: k.opt(k.obj({})),
    /** true when sent from the service's own chat application. */
    sentFromApp: optBool,
    /** true when edited. */
    isEdited: optBool,
    /** true when deleted. */
    isDeleted: optBool,
    /** For an edited or deleted message: what it was before. */
    oldInfo: k.opt(oldInfo),
  });
  const status = k.obj({
    /** Id of the message whose status changed. */
    messageId: k.id,
    /** When the status update was received. */
    timestamp: opt,
    /** sent, delivered, read, error, or edited (an edit made in the messenger itself). */
    status: k.oneOf(V3_STATUS_VALUES),
    /** Present when status is error. */
    error: k.opt(error),
  });
  const createContact = k.obj({
    /** Responsible CRM user. */
    responsibleUserId: optId,
    /** Contact name. */
    name: opt,
    /** The chats of the contact. */
    contactData: k.opt(k.list(k.obj({ chatType: k.opt(k.oneOf(EVENT_CHAT_TYPES)), chatId: optId }))),
    /** `auto` or `byUser`. */
    source,
  });
  const createDeal = k.obj({
    /** Responsible CRM user. */
    responsibleUserId: optId,
    /** Contact ids. */
    contacts: k.opt(k.list(k.id)),
    /** `auto` or `byUser`. */
    source,
  });
  const channelUpdate = k.obj({
    /** Channel id. */
    channelId: k.id,
    /**
     * active, disabled, qr, phoneUnavailable (deprecated), openElsewhere, notEnoughMoney,
     * unauthorized. May be missing (an update carrying only `qridle`).
     */
    state: k.opt(k.oneOf(V3_CHANNEL_STATES)),
    /** wapi channels only. */
    tier: k.opt(k.oneOf(TIERS)),
    /** Base64 QR code, present only when state is qr (see `qrToPng`). */
    qr: opt,
    /** Channel deauthorized or QR expired. */
    qridle: opt,
    /** When the state was set: Unix time in milliseconds. */
    timestamp: k.opt(k.num),
  });
  const templateStatus = k.obj({
    /** Template id. */
    templateGuid: k.id,
    /** Template name. */
    name: opt,
    /** APPROVED, PENDING, REJECTED, PAUSED or DISABLED. */
    status: k.oneOf(TEMPLATE_STATUSES),
  });
  return { error, message, status, createContact, createDeal, channelUpdate, templateStatus };
}

/** The zod schemas of v3 payloads, built on first use (an import does not pay for them). */
export const v3Schemas = lazy(() => buildV3(zodKit));
type V3Schemas = ReturnType<typeof buildV3>;

/** One message of a v3 `messages` delivery. */
export type V3Message = z.output<V3Schemas['message']>;
/** One item of a v3 `statuses` delivery. */
export type V3Status = z.output<V3Schemas['status']>;
/** The error of a v3 message or status whose status is `error`. */
export type V3Error = z.output<V3Schemas['error']>;
/** A v3 `createContact` request. */
export type V3CreateContact = z.output<V3Schemas['createContact']>;
/** A v3 `createDeal` request. */
export type V3CreateDeal = z.output<V3Schemas['createDeal']>;
/** One item of a v3 `channelsUpdates` delivery. */
export type V3ChannelUpdate = z.output<V3Schemas['channelUpdate']>;
/** A v3 `templateStatus` delivery. */
export type V3TemplateStatus = z.output<V3Schemas['templateStatus']>;

/** What every decoded v3 delivery carries. */
interface V3Base {
  /** The surface that sent it. */
  api: 'v3';
  /**
   * The items that did not decode (empty when all did, and for kinds that carry one object). In a
   * body of several kinds, a whole kind that did not decode is listed with `index` -1.
   */
  rejected: RejectedItem[];
  /**
   * The other kinds the same body carried (a v3 body may carry several), each decoded as a
   * delivery of its own, a kind the SDK does not know as `type: 'unknown'`. The handler calls the
   * listeners of each. Absent for a body of one kind.
   */
  also?: V3Webhook[];
}

/** `messages` and `statuses` (possibly both in one delivery): each an array, empty when absent. */
export interface V3MessagesAndStatuses extends V3Base {
  /** The kind. */
  type: 'messagesAndStatuses';
  /** New messages, inbound and outbound. */
  messages: V3Message[];
  /** Status changes of outbound messages. */
  statuses: V3Status[];
}
/** `createContact`: the CRM must create a contact and answer with it. */
export interface V3CreateContactWebhook extends V3Base {
  /** The kind. */
  type: 'createContact';
  /** The request. */
  createContact: V3CreateContact;
}
/** `createDeal`: the CRM must create a deal and answer with it. */
export interface V3CreateDealWebhook extends V3Base {
  /** The kind. */
  type: 'createDeal';
  /** The request. */
  createDeal: V3CreateDeal;
}
/** `channelsUpdates`: channel state changes. */
export interface V3ChannelsUpdates extends V3Base {
  /** The kind. */
  type: 'channelsUpdates';
  /** The changes. */
  channelsUpdates: V3ChannelUpdate[];
}
/** `templateStatus`: moderation of a template. */
export interface V3TemplateStatusWebhook extends V3Base {
  /** The kind. */
  type: 'templateStatus';
  /** The new status. */
  templateStatus: V3TemplateStatus;
}
/** The service's `{ test: true }` probe, sent when the v3 settings are changed. */
export interface V3Test extends V3Base {
  /** The kind. */
  type: 'test';
  /** Always true. */
  test: true;
}
/**
 * A v3 delivery of a kind this SDK does not know yet (as v2 keeps unknown events): the body is
 * kept as it came, and the names of its properties listed.
 */
export interface UnknownV3Webhook extends V3Base {
  /** Always `unknown`. */
  type: 'unknown';
  /** The property names of the body, e.g. `['paymentsUpdates']`. */
  unknownKinds: string[];
  /** The body as it came. */
  body: Record<string, unknown>;
}

/** A decoded v3 delivery: a discriminated union on `type`. */
export type V3Webhook =
  | V3MessagesAndStatuses
  | V3CreateContactWebhook
  | V3CreateDealWebhook
  | V3ChannelsUpdates
  | V3TemplateStatusWebhook
  | V3Test
  | UnknownV3Webhook;

/** The `type` of a v3 delivery. */
export type V3WebhookType = V3Webhook['type'];
