import { maskedAddress } from '../../internal/address.js';
import type { DeliveryRecord } from '../deliveries.js';
import type { RecordedRequest } from '../requests.js';
import type { FakeState } from '../state.js';
import { deliverySummary, lineId } from './log-lines.js';

/** How much of each list one snapshot holds (newest kept): the page is for a person to read. */
export const SNAPSHOT_LIMITS = {
  channels: 100,
  subscriptions: 100,
  messages: 500,
  log: 100,
  /** Of a message's text, and of any id, name or address a caller of the API chose. */
  textChars: 4096,
} as const;

/** One message of a chat as the inbox page shows it. */
export interface InboxMessage {
  message_id: string;
  /** `out`: the CRM sent it; `in`: the customer wrote it. */
  direction: 'out' | 'in';
  /** For `out`: what `simulate.status` takes. */
  request_id: string | null;
  text: string;
  /** ms since the epoch. */
  at: number;
  /** For `out`: accepted, sent, delivered, read or failed; `in`: inbound. */
  status: string;
  reason: string | null;
}

/** What the inbox page renders; the page is sent what changed in it (see delta.ts). */
export interface InboxSnapshot {
  channels: {
    channel_id: string;
    transport: string;
    name: string;
    status: string;
    reason: string | null;
    qr: string | null;
  }[];
  /** `messages`: the chat's newest among the newest messages kept; `count`: all the fake holds of it. */
  chats: {
    channel_id: string;
    chat_id: string;
    chat_type: string;
    count: number;
    /** The transport whose conversation window the chat has (`wapi`, `instAPI`), or null for none. */
    window: string | null;
    /** When that window closes (ms since the epoch); null when the customer never wrote. */
    windowClosesAt: number | null;
    messages: InboxMessage[];
  }[];
  subscriptions: { id: string; event: string; url: string }[];
  v3: { url: string | null; switches: string[] };
  /** `id`: the line's number, the same in every snapshot, so that a page can tell new lines from old. */
  requests: { id: number; method: string; path: string; status: number }[];
  deliveries: {
    id: number;
    api: string;
    kind: string;
    /** What it carried, in a few words (`delivered · "Your order #1042…"`). */
    what: string;
    url: string;
    /** The receiver's answer; 0: none came (`failure` says why); null while awaited. */
    status: number | null;
    failure: string | null;
    repeat: boolean;
    /** For a CRM request: what is wrong with the reply (empty when nothing); null for any other. */
    replyIssues: string[] | null;
  }[];
}

const clip = (text: unknown) => (typeof text === 'string' ? text.slice(0, SNAPSHOT_LIMITS.textChars) : '');
const newest = <T>(list: readonly T[], n: number) => list.slice(Math.max(0, list.length - n));

function chatsOf(state: FakeState): InboxSnapshot['chats'] {
  const all: (InboxMessage & { channel_id: string; chat_id: string; chat_type: string })[] = [];
  for (const m of state.messages.values()) {
    const recipient = (m.body.recipient ?? {}) as Record<string, unknown>;
    const { message_id, request_id, channel_id, chat_id, status } = m;
    const chat_type = typeof recipient.chat_type === 'string' ? recipient.chat_type : 'whatsapp';
    const text =
      clip(m.body.text) || (m.body.attachment ? '[attachment]' : m.body.template ? '[template]' : '');
    const base = { message_id, request_id, channel_id, chat_id, chat_type, status };
    all.push({ ...base, direction: 'out', text, at: m.sentAt ?? 0, reason: m.reason ?? null });
  }
  for (const r of state.received.values()) {
    const { message_id, channel_id, chat_id, chat_type, receivedAt } = r;
    const base = { message_id, channel_id, chat_id, chat_type, request_id: null, reason: null };
    // simulate.inbound takes a text or an attachment
    const text = clip(r.text) || '[attachment]';
    all.push({ ...base, direction: 'in', text, at: receivedAt, status: 'inbound' });
  }
  all.sort((a, b) => a.at - b.at);
  const keyOf = (m: { channel_id: string; chat_id: string }) => `${m.channel_id}\n${m.chat_id}`;
  const counts = new Map<string, number>();
  for (const m of all) counts.set(keyOf(m), (counts.get(keyOf(m)) ?? 0) + 1);
  const chats = new Map<string, InboxSnapshot['chats'][number]>();
  for (const { channel_id, chat_id, chat_type, ...message } of newest(all, SNAPSHOT_LIMITS.messages)) {
    const key = keyOf({ channel_id, chat_id });
    const window = state.windows.windowOf(state.channels.get(channel_id), chat_id);
    const chat = chats.get(key) ?? {
      channel_id: clip(channel_id),
      chat_id: clip(chat_id),
      chat_type: clip(chat_type),
      count: counts.get(key) ?? 0,
      window: window?.transport ?? null,
      windowClosesAt: window?.closesAt ?? null,
      messages: [],
    };
    chats.set(key, chat);
    chat.messages.push(message);
  }
  return [...chats.values()];
}

/** The state of the fake as the inbox page shows it: bounded, secrets and tokens left out. */
export function inboxSnapshot(
  state: FakeState,
  deliveries: readonly DeliveryRecord[],
  requests: readonly RecordedRequest[],
): InboxSnapshot {
  const channels = newest([...state.channels.values()], SNAPSHOT_LIMITS.channels).map((c) => ({
    channel_id: c.channel_id,
    transport: c.transport,
    name: c.name,
    status: c.status,
    reason: c.reason,
    qr: c.status === 'init' && c.reason === 'qr' ? (c.qr ?? null) : null,
  }));
  const { webhooksUri, subscriptions: switches } = state.v3Settings;
  return {
    channels,
    chats: chatsOf(state),
    subscriptions: newest([...state.subscriptions.values()], SNAPSHOT_LIMITS.subscriptions).map(
      ({ id, event, url }) => ({ id: clip(id), event: clip(event), url: clip(maskedAddress(url)) }),
    ),
    v3: {
      url: webhooksUri === null ? null : clip(maskedAddress(webhooksUri)),
      switches: Object.entries(switches)
        .filter(([, on]) => on)
        .map(([name]) => name),
    },
    requests: newest(requests, SNAPSHOT_LIMITS.log).map((record) => ({
      id: lineId(record),
      method: record.method,
      path: clip(record.path),
      status: record.status,
    })),
    deliveries: newest(deliveries, SNAPSHOT_LIMITS.log).map((record) => ({
      id: lineId(record),
      api: record.api,
      kind: record.kind,
      what: deliverySummary(record.body, state),
      url: clip(maskedAddress(record.url)),
      status: record.status ?? null,
      failure: record.failure ?? null,
      repeat: record.repeat,
      replyIssues: record.reply?.issues.map(clip) ?? null,
    })),
  };
}
