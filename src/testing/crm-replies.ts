// The fake's own check of the CRM's reply to a contact or deal request, as the spec states the
// reply (Events → crm_entities.contact_add, crm_entities.deal_add; API v3 → createContact,
// createDeal). Written here again on purpose: the fake shares no check with the SDK, so a reply the
// SDK lets through is still judged as the service would judge it.
import { isRecord } from '../internal/is-record.js';

/** The fake's verdict on the answer to a CRM request. */
export interface ReplyVerdict {
  /** True when the receiver answered 200 with the reply the spec asks for. */
  valid: boolean;
  /** What is wrong, one line per field (`id: a non-empty string is required`); empty when valid. */
  issues: string[];
}

/** The CRM requests, by the v2 event or the v3 property that carries them. */
type CrmRequest = 'contact_add' | 'deal_add' | 'createContact' | 'createDeal';

/** The CRM request a delivery body carries, or undefined for any other delivery. */
export function crmRequestOf(body: Record<string, unknown>): CrmRequest | undefined {
  if (body.event === 'crm_entities.contact_add') return 'contact_add';
  if (body.event === 'crm_entities.deal_add') return 'deal_add';
  if (body.createContact !== undefined) return 'createContact';
  if (body.createDeal !== undefined) return 'createDeal';
  return undefined;
}

type Check = (value: unknown, path: string, issues: string[]) => void;

/** Issues a verdict names at most; a line counts the rest. */
const MAX_ISSUES = 20;

/** A field that must be there: a non-empty string. */
const requiredId: Check = (value, path, issues) => {
  if (typeof value !== 'string' || value === '') issues.push(`${path}: a non-empty string is required`);
};
const requiredString: Check = (value, path, issues) => {
  if (typeof value !== 'string') issues.push(`${path}: a string is required`);
};

/** An optional field (absent or null) of one type. */
const optional =
  (type: 'string' | 'boolean'): Check =>
  (value, path, issues) => {
    if (value !== undefined && value !== null && typeof value !== type) issues.push(`${path}: a ${type}`);
  };

/** An optional array whose items each pass `item`. */
const optionalArray =
  (item: Check, what: string): Check =>
  (value, path, issues) => {
    if (value === undefined || value === null) return;
    if (!Array.isArray(value)) issues.push(`${path}: ${what}`);
    else for (const [i, v] of value.entries()) item(v, `${path}[${i}]`, issues);
  };

/** An object whose fields each pass their check. */
const fields =
  (checks: Record<string, Check>): Check =>
  (value, path, issues) => {
    if (!isRecord(value)) {
      issues.push(`${path}: an object`);
      return;
    }
    for (const [key, check] of Object.entries(checks))
      check(value[key], path ? `${path}.${key}` : key, issues);
  };

/** A chat of a contact: `{chat_type, chat_id, username, phone}` as in the request. */
const chat = fields({
  chat_type: requiredString,
  chat_id: optional('string'),
  username: optional('string'),
  phone: optional('string'),
});

/** v3: the shape of the CRM's contact and deal routes is not shown; an entity has its id. */
const v3Entity = fields({
  id: (value, path, issues) => {
    const ok = (typeof value === 'string' && value !== '') || typeof value === 'number';
    if (!ok) issues.push(`${path}: a non-empty string or a number is required`);
  },
});

/** The reply each CRM request asks for. */
const REPLIES: Record<CrmRequest, Check> = {
  contact_add: fields({
    id: requiredId,
    name: requiredString,
    responsible_user_id: optional('string'),
    recipient: optionalArray(chat, 'an array of chats'),
    uri: optional('string'),
  }),
  deal_add: fields({
    id: requiredId,
    responsible_user_id: optional('string'),
    name: optional('string'),
    contacts: optionalArray(optional('string'), 'an array of strings'),
    source: optional('string'),
    closed: optional('boolean'),
    uri: optional('string'),
  }),
  createContact: v3Entity,
  createDeal: v3Entity,
};

/**
 * Judges the receiver's answer to a CRM request: answered 200 (spec: the receiver answers 200 OK),
 * whole, with a JSON object holding the fields the request's reply needs, each of its type. `text`
 * is the answer's body (at most what the fake reads of it); `unfinished` says, in words, why it
 * came short of its end (a time-out, a reset, longer than the fake reads).
 */
export function judgeReply(
  request: CrmRequest,
  answer: { status: number; text: string; unfinished?: string },
): ReplyVerdict {
  const { status, text, unfinished } = answer;
  if (status !== 200) {
    const answered = status === 0 ? 'no answer came' : `answered ${status}, not 200`;
    return { valid: false, issues: [answered] };
  }
  if (unfinished) return { valid: false, issues: [unfinished] };
  let reply: unknown;
  try {
    reply = JSON.parse(text);
  } catch {
    return { valid: false, issues: ['the reply is not JSON'] };
  }
  if (!isRecord(reply)) return { valid: false, issues: ['the reply must be a JSON object'] };
  const issues: string[] = [];
  REPLIES[request](reply, '', issues);
  const more = issues.length - MAX_ISSUES;
  if (more > 0) issues.splice(MAX_ISSUES, more, `and ${more} more`);
  return { valid: issues.length === 0, issues };
}
