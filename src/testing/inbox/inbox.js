// The fake gateway's inbox page: plain script, no framework. Every text that comes from the fake
// (message texts, names, ids: the CRM's data, hence anyone's) is put in with textContent or an
// attribute, never parsed as HTML. Elements are kept by key across updates, so a text being typed
// and the focus stay where they are when an update arrives.

const PAGE_TOKEN = document.querySelector('meta[name="inbox-token"]').content;
const TICKS = { accepted: '○', sent: '✓', delivered: '✓✓', read: '✓✓', failed: '✕' };
// The spec's failure reasons, written into the page by the fake (the list its action accepts).
const REASONS = document.querySelector('meta[name="failure-reasons"]').content.split(' ');
let channelNames = new Map();

const byId = (id) => document.getElementById(id);

/** An element with props (text, class, on<event>, else attributes) and children. */
function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === 'text') node.textContent = value;
    else if (key === 'class') node.className = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  node.append(...children);
  return node;
}

/** Makes `parent`'s children match `items` by key: existing ones are updated, not rebuilt. */
function keyed(parent, items, keyOf, create, update) {
  const old = new Map([...parent.children].map((child) => [child.dataset.key, child]));
  items.forEach((item, i) => {
    const key = keyOf(item);
    let node = old.get(key);
    old.delete(key);
    if (!node) {
      node = create(item);
      node.dataset.key = key;
    }
    update(node, item);
    if (parent.children[i] !== node) parent.insertBefore(node, parent.children[i] ?? null);
  });
  for (const node of old.values()) node.remove();
}

function notice(text) {
  const box = byId('notice');
  box.textContent = text;
  box.hidden = !text;
}

/** Empties `field` once `done` resolves true (a sent text, a used password). */
async function clearWhen(done, field) {
  if (await done) field.value = '';
}

/** POSTs an action of the page; shows a refusal. */
async function act(name, body, button) {
  // disabling a focused button drops the focus to <body>: it goes back when the button is enabled
  const focused = button && document.activeElement === button;
  if (button) button.disabled = true;
  try {
    const res = await fetch(`/_inbox/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-inbox-token': PAGE_TOKEN },
      body: JSON.stringify(body),
    });
    const answer = await res.json().catch(() => ({}));
    notice(res.ok ? '' : `${name} refused: ${answer.error ?? res.status}`);
    return res.ok;
  } catch {
    notice(`${name} failed: the fake gateway did not answer`);
    return false;
  } finally {
    if (button) button.disabled = false;
    if (focused && document.activeElement === document.body) {
      button.focus();
      // a Scan button hidden meanwhile (its channel is scanned): the channel's name takes the focus
      if (document.activeElement !== button) button.closest('.card')?.querySelector('.name')?.focus();
    }
  }
}

function channelState(c) {
  if (c.status === 'active') return 'active';
  if (c.status === 'init' && c.reason === 'qr') return 'waiting for a scan of its QR';
  if (c.status === 'init' && c.reason === 'wait_for_password')
    return 'scanned: waiting for the CRM to send the 2FA password';
  return c.reason ? `${c.status}: ${c.reason}` : c.status;
}

function createChannel(c) {
  const id = c.channel_id;
  const password = el('input', { type: 'password', name: 'password', required: '', autocomplete: 'off' });
  const scan = (button, options) => act('scan', { channel_id: id, ...options }, button);
  const twoFa = el(
    'form',
    {
      class: 'actions',
      onsubmit: (event) => {
        event.preventDefault();
        clearWhen(scan(event.submitter, { password: password.value }), password);
      },
    },
    el('label', {}, '2FA password', password),
    el('button', { type: 'submit', text: 'Scan with this 2FA password' }),
  );
  const qr = el(
    'div',
    { class: 'qr' },
    el('img', { alt: 'QR code to scan' }),
    el(
      'div',
      { class: 'actions' },
      el('button', { type: 'button', text: 'Scan', onclick: (e) => scan(e.currentTarget, {}) }),
      el('button', {
        type: 'button',
        text: 'Scan from a foreign phone',
        onclick: (e) => scan(e.currentTarget, { foreign_phone: true }),
      }),
    ),
    twoFa,
  );
  return el(
    'li',
    { class: 'card', 'data-channel': id },
    el('h3', { class: 'name', tabindex: '-1' }),
    el('p', { class: 'meta' }),
    el('p', {}, el('span', { class: 'badge' })),
    qr,
  );
}

function updateChannel(node, c) {
  node.querySelector('.name').textContent = c.name || c.transport;
  node.querySelector('.meta').textContent = `${c.transport} · ${c.channel_id}`;
  const badge = node.querySelector('.badge');
  badge.textContent = channelState(c);
  badge.className = `badge ${c.status}`;
  node.dataset.status = c.status;
  const qr = node.querySelector('.qr');
  const showQr = typeof c.qr === 'string' && c.qr.startsWith('data:image/png;base64,');
  // hiding the focused Scan button would drop the keyboard at the top of the page: keep it here
  const hadFocus = !showQr && qr.contains(document.activeElement);
  qr.hidden = !showQr;
  if (hadFocus) node.querySelector('.name').focus();
  const img = qr.querySelector('img');
  if (showQr && img.getAttribute('src') !== c.qr) img.setAttribute('src', c.qr);
  img.alt = `QR code to scan for channel ${c.name || c.channel_id}`;
}

function renderChannels(channels) {
  channelNames = new Map(channels.map((c) => [c.channel_id, c.name || c.transport]));
  byId('channels-empty').hidden = channels.length > 0;
  keyed(byId('channels'), channels, (c) => c.channel_id, createChannel, updateChannel);
  const select = byId('new-chat').elements.channel_id;
  const chosen = select.value;
  keyed(
    select,
    channels,
    (c) => c.channel_id,
    (c) => el('option', { value: c.channel_id }),
    (option, c) => {
      option.textContent = `${c.name || c.transport} (${c.transport}, ${c.status})`;
    },
  );
  if (chosen) select.value = chosen;
}

function createMessage(m) {
  const node = el(
    'li',
    { class: `msg ${m.direction}`, 'data-message': m.message_id },
    el('p', { class: 'text' }),
    el(
      'p',
      { class: 'meta' },
      el('time'),
      ' ',
      el('span', { class: 'ticks', 'aria-hidden': 'true' }),
      el('span', { class: 'state' }),
    ),
  );
  if (m.direction !== 'out') return node;
  const reason = el('select', { name: 'reason' }, ...REASONS.map((r) => el('option', { value: r, text: r })));
  const status = (status, extra) => (e) =>
    act('status', { request_id: m.request_id, status, ...extra }, e.currentTarget);
  // Folded: four controls on every bubble made a phone-width page thousands of pixels tall.
  node.append(
    el(
      'details',
      { class: 'controls' },
      el('summary', { text: 'Set status' }),
      el(
        'div',
        { class: 'actions', role: 'group', 'aria-label': 'Set the status of this message' },
        el('button', {
          type: 'button',
          text: 'Delivered',
          'data-to': 'delivered',
          onclick: status('delivered'),
        }),
        el('button', { type: 'button', text: 'Read', 'data-to': 'read', onclick: status('read') }),
        el('label', { 'data-to': 'failed' }, 'Failure reason', reason),
        el('button', {
          type: 'button',
          text: 'Failed',
          'data-to': 'failed',
          onclick: (e) => status('failed', { reason: reason.value })(e),
        }),
      ),
    ),
  );
  return node;
}

/** The statuses a message may still move to: never backwards (spec: Outbound message status). */
const AHEAD = {
  accepted: ['delivered', 'read', 'failed'],
  sent: ['delivered', 'read', 'failed'],
  delivered: ['read', 'failed'],
};

/** Shows only the controls that move the message forward; none once it is read or failed. */
function updateControls(node, m) {
  const controls = node.querySelector('.controls');
  if (!controls) return;
  const ahead = AHEAD[m.status] ?? [];
  const focused = controls.contains(document.activeElement) ? document.activeElement : null;
  controls.hidden = ahead.length === 0;
  for (const control of controls.querySelectorAll('[data-to]')) {
    control.hidden = !ahead.includes(control.dataset.to);
  }
  // a pressed button that is now behind the message's status: the keyboard goes on to the next step
  if (focused?.closest('[hidden]')) {
    const next = [...controls.querySelectorAll('button')].find((b) => !b.closest('[hidden]'));
    (next ?? node.closest('.chat')?.querySelector('textarea'))?.focus();
  }
}

function updateMessage(node, m) {
  node.dataset.status = m.status;
  node.querySelector('.text').textContent = m.text;
  const time = node.querySelector('time');
  time.dateTime = new Date(m.at).toISOString();
  time.textContent = new Date(m.at).toLocaleTimeString([], {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  node.querySelector('.ticks').textContent = TICKS[m.status] ?? '';
  const state = m.direction === 'in' ? 'from the customer' : m.reason ? `${m.status}: ${m.reason}` : m.status;
  node.querySelector('.state').textContent = state;
  updateControls(node, m);
}

function createChat(chat) {
  const text = el('textarea', { name: 'text', required: '', rows: '2', maxlength: '4096' });
  const form = el(
    'form',
    {
      class: 'compose',
      onsubmit: (event) => {
        event.preventDefault();
        const { channel_id, chat_id, chat_type } = chat;
        clearWhen(
          act('inbound', { channel_id, chat_id, chat_type, text: text.value }, event.submitter),
          text,
        );
      },
    },
    el('label', {}, 'Write as the customer', text),
    el('div', { class: 'actions' }, el('button', { type: 'submit', text: 'Send as the customer' })),
  );
  return el(
    'article',
    { class: 'chat', 'data-chat': chat.chat_id },
    el('h3'),
    el('ol', { class: 'messages' }),
    form,
  );
}

function updateChat(node, chat) {
  const channel = channelNames.get(chat.channel_id) ?? chat.channel_id;
  node.querySelector('h3').textContent = `${chat.chat_type} · ${chat.chat_id} — on ${channel}`;
  keyed(node.querySelector('.messages'), chat.messages, (m) => m.message_id, createMessage, updateMessage);
}

function renderLists(s) {
  const subscriptions = s.subscriptions.map((sub) => el('li', { text: `v2 ${sub.event} → ${sub.url}` }));
  if (subscriptions.length === 0)
    subscriptions.push(el('li', { class: 'empty', text: 'No v2 subscription.' }));
  byId('subscriptions').replaceChildren(...subscriptions);
  byId('v3').textContent = s.v3.url
    ? `v3 → ${s.v3.url} (${s.v3.switches.length ? s.v3.switches.join(', ') : 'every switch off'})`
    : 'No v3 address.';
  const code = (status) =>
    el('span', {
      class: `code${status === 0 || status >= 400 ? ' bad' : ''}`,
      text: status === null ? '…' : status === 0 ? 'no answer' : String(status),
    });
  byId('requests').replaceChildren(
    ...s.requests.toReversed().map((r) => el('li', {}, `${r.method} ${r.path} → `, code(r.status))),
  );
  byId('deliveries').replaceChildren(
    ...s.deliveries
      .toReversed()
      .map((d) =>
        el('li', {}, `${d.api} ${d.kind}${d.repeat ? ' (repeat)' : ''} → ${d.url} → `, code(d.status)),
      ),
  );
}

function render(snapshot) {
  renderChannels(snapshot.channels);
  byId('chats-empty').hidden = snapshot.chats.length > 0;
  // the pair as JSON: joined by a space, ("a b", "c") and ("a", "b c") were one key
  const chatKey = (c) => JSON.stringify([c.channel_id, c.chat_id]);
  keyed(byId('chats'), snapshot.chats, chatKey, createChat, updateChat);
  renderLists(snapshot);
}

byId('new-chat').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const { channel_id, chat_id, text } = form.elements;
  const body = { channel_id: channel_id.value, chat_id: chat_id.value, text: text.value };
  clearWhen(act('inbound', body, event.submitter), text);
});

/** What the page holds, by key (see the fake's delta.ts): the fake sends only what changed. */
const model = new Map();

/** The snapshot the render functions take, rebuilt from the model. */
function snapshotOf() {
  const of = (prefix) => [...model].filter(([key]) => key.startsWith(prefix)).map(([, v]) => v);
  const messages = of('m:').sort((a, b) => a.at - b.at);
  const chats = [...model]
    .filter(([key]) => key.startsWith('h:'))
    .map(([key, chat]) => ({ ...chat, messages: messages.filter((m) => `h:${m.chat}` === key) }));
  const v3 = model.get('v3') ?? { url: null, switches: [] };
  return { channels: of('c:'), chats, subscriptions: of('s:'), v3, requests: of('r:'), deliveries: of('d:') };
}

const events = new EventSource(`/_inbox/events?t=${encodeURIComponent(PAGE_TOKEN)}`);
events.addEventListener('delta', (event) => {
  const delta = JSON.parse(event.data);
  if (delta.reset) model.clear();
  for (const key of delta.del) model.delete(key);
  for (const [key, value] of delta.set) model.set(key, value);
  byId('live').textContent = 'live';
  render(snapshotOf());
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
