/**
 * Replies the CRM sends to the service's requests to create entities (spec: Events →
 * crm_entities.contact_add / deal_add, API v3 → createContact / createDeal). These are checked
 * before they are sent, so they are strict about types.
 * @module
 */
import * as z from 'zod/mini';

const id = z.union([z.string().check(z.minLength(1)), z.number()], {
  error: 'id must be a non-empty string or a number',
});

/** A chat of a contact, as in the request. */
const replyChat = z.looseObject({
  chat_type: z.string(),
  chat_id: z.nullish(z.string()),
  username: z.nullish(z.string()),
  phone: z.nullish(z.string()),
});

/** Reply to crm_entities.contact_add: the contact as the CRM created it. */
export const contactAddReply = z.looseObject({
  /** Contact id in the CRM. */
  id: z.string({ error: 'id (the contact id in the CRM) is required' }).check(z.minLength(1)),
  name: z.string({ error: 'name is required' }),
  responsible_user_id: z.nullish(z.string()),
  recipient: z.nullish(z.array(replyChat)),
  /** CRM link opened from the deals list of the chat interface. */
  uri: z.nullish(z.string()),
});
/** Reply to crm_entities.contact_add. */
export type ContactAddReply = z.input<typeof contactAddReply>;

/** Reply to crm_entities.deal_add: the deal as the CRM created it. */
export const dealAddReply = z.looseObject({
  /** Deal id in the CRM. */
  id: z.string({ error: 'id (the deal id in the CRM) is required' }).check(z.minLength(1)),
  responsible_user_id: z.nullish(z.string()),
  name: z.nullish(z.string()),
  contacts: z.nullish(z.array(z.string())),
  source: z.nullish(z.string()),
  closed: z.nullish(z.boolean()),
  /** CRM link. */
  uri: z.nullish(z.string()),
});
/** Reply to crm_entities.deal_add. */
export type DealAddReply = z.input<typeof dealAddReply>;

/** Reply to v3 createContact: the contact in the shape of the CRM's contact routes (not shown; an id is required). */
export const createContactReply = z.looseObject({ id });
/** Reply to v3 createContact. */
export type CreateContactReply = z.input<typeof createContactReply>;

/** Reply to v3 createDeal: the deal in the shape of the CRM's deal routes (not shown; an id is required). */
export const createDealReply = z.looseObject({ id });
/** Reply to v3 createDeal. */
export type CreateDealReply = z.input<typeof createDealReply>;
