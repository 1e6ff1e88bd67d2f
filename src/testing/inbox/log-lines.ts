// The log of the inbox page: what each delivery carried, in a few words, and the whole of one line
// (its body and the receiver's answer) when a person opens it.

import { maskedAddress } from '../../internal/address.js';
import { isRecord } from '../../internal/is-record.js';
import type { DeliveryRecord } from '../deliveries.js';
import type { FakeState } from '../state.js';

/** Characters of a message text a log line shows, then `…`: enough to tell messages apart. */
export const PREVIEW_CHARS = 16;
/** Characters of a delivery's body an opened line shows. */
export const DETAIL_CHARS = 16 * 1024;

/** A number for each log record, given when the page is first sent it, the same ever after. */
const lineIds = new WeakMap<object, number>();
let lastLineId = 0;

/** The number of a log record's line. */
export function lineId(record: object): number {
  let id = lineIds.get(record);
  if (id === undefined) {
    id = ++lastLineId;
    lineIds.set(record, id);
  }
  return id;
}

/** A text in a line: on one line, at most {@link PREVIEW_CHARS} characters, quoted; '' for none. */
export function preview(text: unknown): string {
  if (typeof text !== 'string' || text === '') return '';
  const flat = text
    .slice(0, 4 * PREVIEW_CHARS)
    .replace(/\s+/g, ' ')
    .trim();
  const chars = Array.from(flat);
  return chars.length > PREVIEW_CHARS ? `"${chars.slice(0, PREVIEW_CHARS).join('')}…"` : `"${flat}"`;
}

const item = (value: unknown): Record<string, unknown> => (isRecord(value) ? value : {});
const words = (...parts: unknown[]) => parts.filter((p) => typeof p === 'string' && p !== '').join(' · ');
const short = (value: unknown) => (typeof value === 'string' ? value.slice(0, 40) : '');
const withReason = (status: unknown, reason: unknown) =>
  typeof reason === 'string' && reason !== '' ? `${short(status)} (${short(reason)})` : short(status);

/** What a message carried: a preview of its text, else the kind of its content. */
function content(m: Record<string, unknown>): string {
  return preview(m.text) || (m.attachment ? '[attachment]' : m.template ? '[template]' : '');
}

/** The text of a message the fake sent, by its id (a status names only the id). */
const sentText = (state: FakeState, id: unknown) =>
  typeof id === 'string' ? content(state.messages.get(id)?.body ?? {}) : '';
const channelName = (state: FakeState, id: unknown) =>
  typeof id === 'string' ? short(state.channels.get(id)?.name ?? id) : '';

type Describe = (i: Record<string, unknown>, state: FakeState) => string;

/** What one item of each v2 event says, by the event. */
const V2_ITEM: Record<string, Describe> = {
  'message.add': (i) => words(i.direction, content(i)),
  'message.status_update': (i, s) => words(withReason(i.status, i.reason), sentText(s, i.message_id)),
  'message.edit': (i) => content(i),
  'message.delete': (i, s) => sentText(s, i.message_id),
  'channel.status_update': (i, s) => words(withReason(i.status, i.reason), channelName(s, i.channel_id)),
  'channel.create': (i, s) => channelName(s, i.channel_id),
  'channel.delete': (i, s) => channelName(s, i.channel_id),
  'channel.qr_update': (i, s) => words('QR', channelName(s, i.channel_id)),
  'channel.waba_tier_update': (i, s) => words(short(i.tier), channelName(s, i.channel_id)),
  'waba_template.status_update': (i) => short(i.status),
  'crm_entities.contact_add': (i) => preview(i.name),
};

/** What the first item of each v3 property says. */
const V3_ITEM: Record<string, Describe> = {
  messages: (i) => words(i.isEcho === true ? 'outbound' : 'inbound', content(i)),
  statuses: (i, s) => {
    const code = item(i.error).error;
    return words(withReason(i.status, code), sentText(s, i.messageId));
  },
  createContact: (i) => preview(i.name),
  channelsUpdates: (i, s) => words(short(i.state), channelName(s, i.channelId)),
  templateStatus: (i) => words(preview(i.name), short(i.status)),
};

/** The first item's words, and how many more items the delivery carried. */
function firstOf(items: unknown, describe: Describe | undefined, state: FakeState): string {
  const list = Array.isArray(items) ? items : [items];
  const first = describe ? describe(item(list[0]), state) : '';
  return list.length > 1 ? words(first, `+${list.length - 1} more`) : first;
}

/**
 * What a delivery carried, in a few words: `delivered · "Your order #1042…"` for a status of a
 * message sent through the fake; message texts shortened to {@link PREVIEW_CHARS} characters.
 */
export function deliverySummary(body: Record<string, unknown>, state: FakeState): string {
  if (typeof body.event === 'string') {
    const describe = Object.hasOwn(V2_ITEM, body.event) ? V2_ITEM[body.event] : undefined;
    return firstOf(body.data, describe, state);
  }
  const parts = Object.keys(body).map((key) =>
    firstOf(body[key], Object.hasOwn(V3_ITEM, key) ? V3_ITEM[key] : undefined, state),
  );
  return words(...parts);
}

/** An opened line of the log: the whole delivery and the receiver's answer. */
export interface DeliveryDetail {
  /** The address, its secrets masked. */
  url: string;
  /** The body sent, as indented JSON (the first {@link DETAIL_CHARS} characters). */
  body: string;
  /** The receiver's answer; 0: none came (`failure` says why); null while awaited. */
  status: number | null;
  /** Why no answer came (`dropped`, `timedOut`, `connection`, `closed`), or null. */
  failure: string | null;
  /** The start of the receiver's answer body. */
  answer: string | null;
  /** For a CRM request: what is wrong with the reply (empty when nothing); null for any other. */
  replyIssues: string[] | null;
}

/** The delivery of the log line numbered `id`, while the fake still holds it. */
export function deliveryDetail(id: number, records: readonly DeliveryRecord[]): DeliveryDetail | undefined {
  const record = records.findLast((r) => lineIds.get(r) === id);
  if (!record) return undefined;
  const json = JSON.stringify(record.body, null, 2);
  const more = json.length - DETAIL_CHARS;
  return {
    url: maskedAddress(record.url),
    body: more > 0 ? `${json.slice(0, DETAIL_CHARS)}\n… ${more} more characters` : json,
    status: record.status ?? null,
    failure: record.failure ?? null,
    answer: record.answer ?? null,
    replyIssues: record.reply?.issues ?? null,
  };
}
