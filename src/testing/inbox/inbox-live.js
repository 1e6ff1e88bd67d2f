// The inbox page's live updates. The fake sends keyed entries, and after the first update only
// those that changed (see the fake's delta.ts; a large update comes as several events, see
// event-pages.ts): each is applied to the element that shows it, a new one appended, a status set
// in place; nothing else on the page is touched, so a text being typed and the focus stay where
// they are. What the page keeps is bounded: the fake's own bounds
// on its lists, and the newest SHOWN_PER_CHAT messages of each chat under a line counting the rest.
import {
  byId,
  channelNames,
  createChannel,
  createChat,
  createMessage,
  el,
  PAGE_TOKEN,
  updateChannel,
  updateMessage,
  updateWindow,
} from './inbox.js';
import { code, createDeliveryLine, updateDeliveryLine } from './inbox-log.js';

/** Messages a chat shows, the newest; a line above them counts the earlier ones. */
const SHOWN_PER_CHAT = 50;

/** The elements shown, by the key of the entry each shows. */
const shown = {
  /** 'c:…' → { card, option } */
  channels: new Map(),
  /** 'h:…' → { node, list, entry } */
  chats: new Map(),
  /** 'm:…' → { node, chat } */
  messages: new Map(),
  /** 's:…' → li */
  subscriptions: new Map(),
  /** 'r:…' and 'd:…' → li */
  lines: new Map(),
};
const noSubscription = el('li', { class: 'empty', text: 'No v2 subscription.' });

function putChannel(key, c) {
  let channel = shown.channels.get(key);
  if (!channel) {
    channel = { card: createChannel(c), option: el('option', { value: c.channel_id }) };
    shown.channels.set(key, channel);
    byId('channels').append(channel.card);
    byId('new-chat').elements.channel_id.append(channel.option);
  }
  updateChannel(channel.card, c);
  channel.option.textContent = `${c.name || c.transport} (${c.transport}, ${c.status})`;
  const name = c.name || c.transport;
  if (channelNames.get(c.channel_id) === name) return;
  channelNames.set(c.channel_id, name);
  for (const chat of shown.chats.values()) if (chat.entry.channel_id === c.channel_id) titleChat(chat);
}

function titleChat({ node, entry }) {
  const channel = channelNames.get(entry.channel_id) ?? entry.channel_id;
  node.querySelector('h3').textContent = `${entry.chat_type} · ${entry.chat_id} — on ${channel}`;
}

/** The line above a chat's messages: how many of its messages (`count`, from the fake) are not shown. */
function countEarlier({ node, list, entry }) {
  const earlier = Math.max(0, (entry.count ?? 0) - list.childElementCount);
  const line = node.querySelector('.earlier');
  line.hidden = earlier === 0;
  line.textContent = `${earlier} earlier message${earlier === 1 ? '' : 's'}`;
}

function putChat(key, entry) {
  let chat = shown.chats.get(key);
  if (!chat) {
    const node = createChat(entry);
    chat = { node, list: node.querySelector('.messages'), entry };
    shown.chats.set(key, chat);
    byId('chats').append(node);
  }
  chat.entry = entry;
  titleChat(chat);
  updateWindow(chat.node, entry);
  countEarlier(chat);
}

// A window's time left changes with the clock, not with the fake: each chat's line is read again
// every minute.
setInterval(() => {
  for (const chat of shown.chats.values()) updateWindow(chat.node, chat.entry);
}, 60_000);

/**
 * True when a message older than every one `chat` shows stays out: the chat is full, or others
 * before it are hidden too (an edit of a hidden message after a delete made room), so that shown
 * it would sit above a gap, the messages between missing.
 */
function staysEarlier(chat) {
  const showing = chat.list.childElementCount;
  if (showing === 0) return false;
  return showing >= SHOWN_PER_CHAT || (chat.entry.count ?? 0) - showing > 1;
}

/**
 * Shows a message in its chat, in time order (almost always last): a new one is added unless it is
 * older than every message shown and {@link staysEarlier}; past SHOWN_PER_CHAT, the oldest shown goes.
 */
function putMessage(key, m) {
  const known = shown.messages.get(key);
  if (known) return updateMessage(known.node, m);
  const chat = shown.chats.get(`h:${m.chat}`);
  if (!chat) return;
  let before = chat.list.lastElementChild;
  while (before && Number(before.dataset.at) > m.at) before = before.previousElementSibling;
  if (!before && staysEarlier(chat)) return;
  const node = createMessage(m);
  node.dataset.key = key;
  node.dataset.at = String(m.at);
  updateMessage(node, m);
  if (before) before.after(node);
  else chat.list.prepend(node);
  shown.messages.set(key, { node, chat });
  if (chat.list.childElementCount > SHOWN_PER_CHAT) removeMessage(chat.list.firstElementChild.dataset.key);
  countEarlier(chat);
}

/** A line of a list; a new one goes first (the logs show the newest first) or last. */
function putLine(map, key, list, first, ...content) {
  let line = map.get(key);
  if (!line) {
    line = el('li');
    map.set(key, line);
    if (first) list.prepend(line);
    else list.append(line);
  }
  line.replaceChildren(...content);
}

function showV3(v3) {
  const switches = v3.switches.length ? v3.switches.join(', ') : 'every switch off';
  byId('v3').textContent = v3.url ? `v3 → ${v3.url} (${switches})` : 'No v3 address.';
}

const PUT = {
  c: putChannel,
  h: putChat,
  m: putMessage,
  s: (key, s) => putLine(shown.subscriptions, key, byId('subscriptions'), false, `v2 ${s.event} → ${s.url}`),
  r: (key, r) =>
    putLine(shown.lines, key, byId('requests'), true, `${r.method} ${r.path} → `, code(r.status)),
  d: (key, d) => {
    let line = shown.lines.get(key);
    if (!line) {
      line = createDeliveryLine();
      shown.lines.set(key, line);
      byId('deliveries').prepend(line);
    }
    updateDeliveryLine(line, d);
  },
};

function removeMessage(key) {
  const message = shown.messages.get(key);
  if (!message) return;
  shown.messages.delete(key);
  message.node.remove();
  countEarlier(message.chat);
}

function removeChat(key) {
  const chat = shown.chats.get(key);
  if (!chat) return;
  for (const node of chat.list.children) shown.messages.delete(node.dataset.key);
  shown.chats.delete(key);
  chat.node.remove();
}

function removeChannel(key) {
  const channel = shown.channels.get(key);
  if (!channel) return;
  shown.channels.delete(key);
  channel.card.remove();
  channel.option.remove();
}

function removeLine(map, key) {
  map.get(key)?.remove();
  map.delete(key);
}

const REMOVE = {
  c: removeChannel,
  h: removeChat,
  m: removeMessage,
  s: (key) => removeLine(shown.subscriptions, key),
  r: (key) => removeLine(shown.lines, key),
  d: (key) => removeLine(shown.lines, key),
};

/** Calls `table`'s function for the kind of entry `key` names (`c:…` a channel); others are left alone. */
function byKind(table, key, ...args) {
  const kind = key.slice(0, key.indexOf(':'));
  if (Object.hasOwn(table, kind)) table[kind](key, ...args);
}

/** The keys a reset being received has set so far: once its last event came, the page keeps only these. */
let resetKeys = null;

/**
 * Applies one event of an update (a large update comes as several, each but the last marked
 * `more`). A reset (a page that connects, or connects again) is whole at its last event: then what
 * it did not set, left from before, goes.
 */
function apply(delta) {
  if (delta.reset) resetKeys = new Set();
  for (const key of delta.del) byKind(REMOVE, key);
  for (const [key, value] of delta.set) {
    resetKeys?.add(key);
    if (key === 'v3') showV3(value);
    else byKind(PUT, key, value);
  }
  if (resetKeys && !delta.more) {
    const all = Object.values(shown).flatMap((map) => [...map.keys()]);
    for (const key of all) if (!resetKeys.has(key)) byKind(REMOVE, key);
    resetKeys = null;
  }
  byId('channels-empty').hidden = shown.channels.size > 0;
  byId('chats-empty').hidden = shown.chats.size > 0;
  if (shown.subscriptions.size === 0) byId('subscriptions').append(noSubscription);
  else noSubscription.remove();
}

const events = new EventSource(`/_inbox/events?t=${encodeURIComponent(PAGE_TOKEN)}`);
events.addEventListener('delta', (event) => {
  apply(JSON.parse(event.data));
  byId('live').textContent = 'live';
});
events.addEventListener('replaced', () => {
  // newer pages took this one's place: reconnecting would close one of them, and so on forever
  events.close();
  byId('live').textContent = 'closed: another inbox page took its place; reload to come back';
});
events.addEventListener('error', () => {
  // a restarted fake has a new page token: the browser gives up, and a reload gets the new one
  const closed = events.readyState === EventSource.CLOSED;
  byId('live').textContent = closed ? 'disconnected: reload the page' : 'reconnecting…';
});
