import type { KnownV2Event, V2Payload } from '../schemas/events-v2.js';
import type { IdSource } from './ids.js';

/**
 * A payload the spec does not show: its type declares no field (unknown fields are kept at run
 * time, not in the type), so the plausible fields given here are typed as it.
 */
function unshown(fields: Record<string, unknown>): never {
  return fields as never;
}

/** The chat of every default v2 delivery: a whatsapp dialog. */
export const DEFAULT_CHAT_ID = '79001234567';

/**
 * One default payload item per v2 event kind: what the spec requires, plus the fields a reader
 * expects to see. Typed against the SDK's decoding schemas, so a schema that gains a required
 * field breaks this table at compile time; a test also checks that every kind decodes.
 */
export const V2_DEFAULTS: { [E in KnownV2Event]: (ids: IdSource) => V2Payload<E> } = {
  'message.add': (ids) => ({
    message_id: ids.id(),
    chat_id: DEFAULT_CHAT_ID,
    channel_id: ids.id(),
    direction: 'inbound',
    quoted_message_id: null,
    timestamp: ids.now,
    status: 'accepted',
    crm_user_id: null,
    recipient: {
      chat_type: 'whatsapp',
      chat_id: DEFAULT_CHAT_ID,
      phone: DEFAULT_CHAT_ID,
      profile_id: null,
      advert: null,
      name: 'Alice',
    },
    text: 'Hello',
  }),
  'message.status_update': (ids) => ({
    message_id: ids.id(),
    request_id: ids.id(),
    status: 'delivered',
    reason: null,
  }),
  'message.delete': (ids) => ({ message_id: ids.id(), crm_user_id: null, timestamp: ids.now }),
  'message.edit': (ids) => ({
    message_id: ids.id(),
    crm_user_id: null,
    timestamp: ids.now,
    text: 'Hello (edited)',
    old_text: 'Hello',
  }),
  'waba_template.status_update': (ids) => ({ template_id: ids.id(), status: 'APPROVED', timestamp: ids.now }),
  'channel.status_update': (ids) => ({ channel_id: ids.id(), status: 'active', reason: null }),
  'channel.create': (ids) => ({ channel_id: ids.id(), timestamp: ids.now }),
  'channel.delete': (ids) => ({ channel_id: ids.id(), timestamp: ids.now }),
  'channel.qr_update': (ids) => ({
    channel_id: ids.id(),
    // A 1×1 PNG: any image data URL is what the spec promises, not a scannable code.
    qr_code:
      'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgAB4iG8MwAAAABJRU5ErkJggg==',
    platform: 'whatsapp',
  }),
  'channel.waba_tier_update': (ids) => ({ channel_id: ids.id(), tier: 'TIER_1K' }),
  'group_chat.memberships_update': (ids) => ({
    group_id: ids.id(),
    members: [{ group_member_id: ids.id(), name: 'Bob', avatar_url: null, status: 'in_group' }],
  }),
  'group_chat.update': (ids) => unshown({ group_id: ids.id() }),
  'crm_entities.contact_add': () => ({
    responsible_user_id: '1',
    name: 'Alice',
    recipient: [{ chat_type: 'whatsapp', chat_id: DEFAULT_CHAT_ID, phone: DEFAULT_CHAT_ID }],
    source: 'auto',
  }),
  'crm_entities.deal_add': (ids) => ({
    responsible_user_id: '1',
    pipeline_id: '1',
    stage_id: '1',
    contacts: [ids.id()],
    source: 'auto',
  }),
  'messages_dump.status_update': (ids) => unshown({ task_id: ids.id(), status: 'done' }),
  'channel.update': (ids) => unshown({ channel_id: ids.id() }),
};
