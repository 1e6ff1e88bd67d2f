/**
 * Entry point `messaging-gateway-sdk/schemas`: the zod schemas (runtime values) of every request,
 * answer, event and reply of the spec, for users who validate their own data. The types of the
 * main entry are inferred from these, so they never disagree.
 *
 * The event schemas keep unknown fields at run time (their types list only the spec's fields),
 * decode values tolerantly (numbers for ids, enumerations in any case) and require of an item only
 * what identifies it.
 * @example
 * ```ts
 * import { messageAdd } from 'messaging-gateway-sdk/schemas';
 * const result = messageAdd.safeParse(item);
 * ```
 * @module
 */
import { v2Schemas } from './schemas/events-v2.js';
import { v3Schemas } from './schemas/events-v3.js';

export * from './schemas/channels.js';
export * from './schemas/common.js';
export * from './schemas/keyboards.js';
export { lenientEnum } from './schemas/lenient.js';
export * from './schemas/messages.js';
export * from './schemas/replies.js';
export * from './schemas/subscriptions.js';

const v2 = v2Schemas();
const v3 = v3Schemas();

/** The payload schema of every v2 event kind, by event name. */
export const v2Payloads = v2.payloads;
/** Envelope metadata of a v2 delivery (`meta`). */
export const webhookMeta = v2.webhookMeta;
/** message.add payload. */
export const messageAdd = v2.payloads['message.add'];
/** message.status_update payload. */
export const messageStatusUpdate = v2.payloads['message.status_update'];
/** message.delete payload. */
export const messageDelete = v2.payloads['message.delete'];
/** message.edit payload. */
export const messageEdit = v2.payloads['message.edit'];
/** waba_template.status_update payload. */
export const wabaTemplateStatusUpdate = v2.payloads['waba_template.status_update'];
/** channel.status_update payload. */
export const channelStatusUpdate = v2.payloads['channel.status_update'];
/** channel.create and channel.delete payload. */
export const channelLifecycle = v2.payloads['channel.create'];
/** channel.qr_update payload. */
export const channelQrUpdate = v2.payloads['channel.qr_update'];
/** channel.waba_tier_update payload. */
export const channelWabaTierUpdate = v2.payloads['channel.waba_tier_update'];
/** group_chat.memberships_update payload. */
export const groupChatMembershipsUpdate = v2.payloads['group_chat.memberships_update'];
/** crm_entities.contact_add payload. */
export const crmContactAdd = v2.payloads['crm_entities.contact_add'];
/** crm_entities.deal_add payload. */
export const crmDealAdd = v2.payloads['crm_entities.deal_add'];
/** The chat of a message.add (`recipient`). */
export const eventRecipient = v2.recipient;
/** One message of a v3 `messages` delivery. */
export const v3Message = v3.message;
/** One item of a v3 `statuses` delivery. */
export const v3Status = v3.status;
/** The error of a v3 message or status. */
export const v3Error = v3.error;
/** A v3 `createContact` request. */
export const v3CreateContact = v3.createContact;
/** A v3 `createDeal` request. */
export const v3CreateDeal = v3.createDeal;
/** One item of a v3 `channelsUpdates` delivery. */
export const v3ChannelUpdate = v3.channelUpdate;
/** A v3 `templateStatus` delivery. */
export const v3TemplateStatus = v3.templateStatus;
