import type {
  V3ChannelUpdate,
  V3CreateContact,
  V3CreateDeal,
  V3Message,
  V3Status,
  V3TemplateStatus,
} from '../schemas/events-v3.js';
import { DEFAULT_CHAT_ID } from './defaults-v2.js';
import type { IdSource } from './ids.js';

/** Time in the messenger as v3 writes it: `yyyy-mm-ddThh:mm:ss.ms`, no zone. */
export function v3DateTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 23);
}

/**
 * The default of each v3 payload (spec: API v3 webhook deliveries), typed against the SDK's
 * decoding schemas like the v2 table.
 */
export const V3_DEFAULTS = {
  message: (ids: IdSource): V3Message => ({
    messageId: ids.id(),
    channelId: ids.id(),
    chatType: 'whatsapp',
    chatId: DEFAULT_CHAT_ID,
    dateTime: v3DateTime(ids.now),
    type: 'text',
    isEcho: false,
    contact: { name: 'Alice', phone: DEFAULT_CHAT_ID },
    text: 'Hello',
    status: 'inbound',
  }),
  status: (ids: IdSource): V3Status => ({
    messageId: ids.id(),
    timestamp: v3DateTime(ids.now),
    status: 'delivered',
  }),
  createContact: (): V3CreateContact => ({
    responsibleUserId: '1',
    name: 'Alice',
    contactData: [{ chatType: 'whatsapp', chatId: DEFAULT_CHAT_ID }],
    source: 'auto',
  }),
  createDeal: (ids: IdSource): V3CreateDeal => ({
    responsibleUserId: '1',
    contacts: [ids.id()],
    source: 'auto',
  }),
  channelUpdate: (ids: IdSource): V3ChannelUpdate => ({
    channelId: ids.id(),
    state: 'active',
    timestamp: ids.now,
  }),
  templateStatus: (ids: IdSource): V3TemplateStatus => ({
    templateGuid: ids.id(),
    name: 'order_shipped',
    status: 'APPROVED',
  }),
};
