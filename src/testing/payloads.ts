import type { FakeMessage } from './state.js';
import { v3ErrorCode } from './v3-equivalents.js';

/** Chat ids and phones starting with this are unregistered: sends to them fail with bad_contact. */
export const UNREGISTERED_PREFIX = '000';

/** A message that arrives from a contact, for `simulate.inbound`. */
export interface InboundMessage {
  /** The channel it arrives on (any id; the fake does not check it). */
  channel_id: string;
  /** The contact's chat, e.g. a whatsapp number (digits only). */
  chat_id: string;
  /** @default 'whatsapp' */
  chat_type?: string;
  text?: string;
  attachment?: { url: string; name?: string; mimetype?: string; size?: number };
  /** @default a random UUID */
  message_id?: string;
  /** The contact's display name. */
  name?: string;
  quoted_message_id?: string;
  /**
   * When the customer wrote (ms since the epoch): the delivery's v2 `timestamp` and v3
   * `dateTime`, and when the chat's conversation window opened (an earlier time than now
   * simulates a message written long ago). @default now
   */
  timestamp?: number;
}

/** True when a send goes to an unregistered number (see {@link UNREGISTERED_PREFIX}). */
export function isUnregistered(message: FakeMessage): boolean {
  const recipient = message.body.recipient as Record<string, unknown> | undefined;
  const phone = typeof recipient?.phone === 'string' ? recipient.phone : '';
  return message.chat_id.startsWith(UNREGISTERED_PREFIX) || phone.startsWith(UNREGISTERED_PREFIX);
}

/** The v2 message.add of an accepted send (spec: message.add, outbound message registered). */
export function outboundAdd(m: FakeMessage): Record<string, unknown> {
  const { recipient, text, attachment, template, crm_user_id, quoted_message_id } = m.body;
  return {
    message_id: m.message_id,
    chat_id: m.chat_id,
    channel_id: m.channel_id,
    direction: 'outbound',
    quoted_message_id: quoted_message_id ?? null,
    timestamp: Date.now(),
    status: 'accepted',
    crm_user_id: crm_user_id ?? null,
    recipient: { ...(recipient as object), chat_id: m.chat_id, profile_id: null, advert: null },
    text,
    attachment,
    template,
  };
}

/** The v3 messages item of an accepted send: an echo (spec: API v3 → messages). */
export function v3Echo(m: FakeMessage): Record<string, unknown> {
  const recipient = (m.body.recipient ?? {}) as Record<string, unknown>;
  return {
    messageId: m.message_id,
    channelId: m.channel_id,
    chatType: recipient.chat_type,
    chatId: m.chat_id,
    dateTime: new Date().toISOString().slice(0, 23),
    type: m.body.attachment ? 'document' : m.body.template ? 'wapi_template' : 'text',
    isEcho: true,
    text: m.body.text,
    status: 'sent',
  };
}

/** The v2 and v3 items of one status of a message; v3 has no `accepted`, and says `error` for failed. */
export function statusItems(m: FakeMessage, status: string, reason: string | null) {
  const v2 = { message_id: m.message_id, request_id: m.request_id, status, reason };
  if (status === 'accepted') return { v2 };
  const failed = status === 'failed';
  const v3 = {
    messageId: m.message_id,
    timestamp: new Date().toISOString().slice(0, 23),
    status: failed ? 'error' : status,
    ...(failed && { error: { error: v3ErrorCode(reason, m.body), description: reason ?? 'failed' } }),
  };
  return { v2, v3 };
}

/** The v2 message.add and the v3 messages item of an inbound message. */
export function inboundItems(message: InboundMessage & { message_id: string; timestamp: number }) {
  const chat_type = message.chat_type ?? 'whatsapp';
  const v2 = {
    message_id: message.message_id,
    chat_id: message.chat_id,
    channel_id: message.channel_id,
    direction: 'inbound',
    quoted_message_id: message.quoted_message_id ?? null,
    timestamp: message.timestamp,
    status: 'accepted',
    crm_user_id: null,
    recipient: {
      chat_type,
      chat_id: message.chat_id,
      profile_id: null,
      advert: null,
      ...(message.name && { name: message.name }),
    },
    text: message.text,
    attachment: message.attachment,
  };
  const v3 = {
    messageId: message.message_id,
    channelId: message.channel_id,
    chatType: chat_type,
    chatId: message.chat_id,
    dateTime: new Date(message.timestamp).toISOString().slice(0, 23),
    type: message.attachment ? 'document' : 'text',
    isEcho: false,
    contact: { name: message.name ?? null },
    text: message.text,
    contentUri: message.attachment?.url,
    status: 'inbound',
  };
  return { v2, v3 };
}
