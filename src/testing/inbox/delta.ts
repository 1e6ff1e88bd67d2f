import type { InboxSnapshot } from './snapshot.js';

/** One thing the page shows, by key: a channel, a chat, a message, a subscription, a log line, v3. */
export type Entries = Map<string, Record<string, unknown>>;

/**
 * What changed between two sets of entries: `set` holds the new or changed ones (in order),
 * `del` the keys gone. With `reset`, the page keeps only what this update sets (a page that
 * connects, or connects again). An update is sent as one event or more (see eventPages): `more` on
 * each but the last.
 */
export interface InboxDelta {
  reset?: true;
  more?: true;
  set: [string, Record<string, unknown>][];
  del: string[];
}

/**
 * The snapshot as keyed entries, so that only what changed need be sent: `c:` channels, `h:`
 * chats (their messages carry the chat's key), `m:` messages (by direction and id: a customer's
 * message may carry the id of one the CRM sent), `s:` subscriptions, `r:` and `d:` the log of
 * requests and deliveries, `v3` the v3 settings. The page rebuilds the snapshot.
 */
export function entriesOf(snapshot: InboxSnapshot): Entries {
  const entries: Entries = new Map();
  for (const c of snapshot.channels) entries.set(`c:${c.channel_id}`, c);
  for (const { messages, ...chat } of snapshot.chats) {
    const key = JSON.stringify([chat.channel_id, chat.chat_id]);
    entries.set(`h:${key}`, chat);
    for (const m of messages) entries.set(`m:${m.direction}:${m.message_id}`, { ...m, chat: key });
  }
  for (const s of snapshot.subscriptions) entries.set(`s:${s.id}`, s);
  for (const r of snapshot.requests) entries.set(`r:${r.id}`, r);
  for (const d of snapshot.deliveries) entries.set(`d:${d.id}`, d);
  entries.set('v3', snapshot.v3);
  return entries;
}

/** True when two entries show the same: each field the same value (arrays compared as JSON). */
function same(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => {
    const x = a[k];
    const y = b[k];
    return x === y || (Array.isArray(x) && Array.isArray(y) && JSON.stringify(x) === JSON.stringify(y));
  });
}

/** What changed from `before` to `after`; a field's text is compared, never re-sent when equal. */
export function diff(before: Entries, after: Entries): InboxDelta {
  const set: InboxDelta['set'] = [];
  for (const [key, entry] of after) {
    const old = before.get(key);
    if (!old || !same(old, entry)) set.push([key, entry]);
  }
  const del = [...before.keys()].filter((key) => !after.has(key));
  return { set, del };
}
