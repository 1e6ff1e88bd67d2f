// The fake gateway's inbox page: plain script, no framework. Every text that comes from the fake
// (message texts, names, ids: the CRM's data, hence anyone's) is put in with textContent or an
// attribute, never parsed as HTML. This file makes the page's elements and its actions;
// inbox-live.js, the page's module, applies each update of the fake to the elements it concerns.

/** The token the page's actions carry: written into the page by the fake, readable by it alone. */
export const PAGE_TOKEN = document.querySelector('meta[name="inbox-token"]').content;
const TICKS = { accepted: '○', sent: '✓', delivered: '✓✓', read: '✓✓', failed: '✕' };
// The spec's failure reasons, written into the page by the fake (the list its action accepts).
const REASONS = document.querySelector('meta[name="failure-reasons"]').content.split(' ');
/** Each channel's name as its chats show it, by channel id. */
export const channelNames = new Map();

/** The page's element with this id. */
export const byId = (id) => document.getElementById(id);

/** An element with props (text, class, on<event>, else attributes) and children. */
export function el(tag, props = {}, ...children) {
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

/** A channel's card: its name, status and, while it waits for a scan, its QR and scan buttons. */
export function createChannel(c) {
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

/** Shows channel `c` in its card. */
export function updateChannel(node, c) {
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

/** The buttons that set a message's status, with the failure reason to choose. */
function statusControls(m) {
  const reason = el('select', { name: 'reason' }, ...REASONS.map((r) => el('option', { value: r, text: r })));
  const status = (status, extra) => (e) =>
    act('status', { request_id: m.request_id, status, ...extra }, e.currentTarget);
  return el(
    'div',
    { class: 'actions', role: 'group', 'aria-label': 'Set the status of this message' },
    el('button', { type: 'button', text: 'Delivered', 'data-to': 'delivered', onclick: status('delivered') }),
    el('button', { type: 'button', text: 'Read', 'data-to': 'read', onclick: status('read') }),
    el('label', { 'data-to': 'failed' }, 'Failure reason', reason),
    el('button', {
      type: 'button',
      text: 'Failed',
      'data-to': 'failed',
      onclick: (e) => status('failed', { reason: reason.value })(e),
    }),
  );
}

/** A message's bubble; an outbound one has its status controls folded under a summary. */
export function createMessage(m) {
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
  // Folded: four controls on every bubble made a phone-width page thousands of pixels tall. They
  // are made when first unfolded (a click, or Enter, on the summary, before it opens): a burst of
  // sends makes hundreds of bubbles, and a select of every reason on each was most of their cost.
  const summary = el('summary', { text: 'Set status' });
  const controls = el('details', { class: 'controls' }, summary);
  summary.addEventListener('click', () => {
    if (controls.childElementCount > 1) return;
    controls.append(statusControls(m));
    updateControls(node);
  });
  node.append(controls);
  return node;
}

/** The statuses a message may still move to: never backwards (spec: Outbound message status). */
const AHEAD = {
  accepted: ['delivered', 'read', 'failed'],
  sent: ['delivered', 'read', 'failed'],
  delivered: ['read', 'failed'],
};

/** Shows only the controls that move the message forward; none once it is read or failed. */
function updateControls(node) {
  const controls = node.querySelector('.controls');
  if (!controls) return;
  const ahead = AHEAD[node.dataset.status] ?? [];
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

/** The time of a message as hh:mm:ss; one formatter, made once (making one per message was slow). */
const TIME = new Intl.DateTimeFormat([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** Shows `m` in its bubble: what changed is set, the rest left alone. */
export function updateMessage(node, m) {
  node.dataset.status = m.status;
  const text = node.querySelector('.text');
  if (text.textContent !== m.text) text.textContent = m.text;
  const time = node.querySelector('time');
  const at = new Date(m.at).toISOString();
  if (time.dateTime !== at) {
    time.dateTime = at;
    time.textContent = TIME.format(m.at);
  }
  node.querySelector('.ticks').textContent = TICKS[m.status] ?? '';
  const state = m.direction === 'in' ? 'from the customer' : m.reason ? `${m.status}: ${m.reason}` : m.status;
  node.querySelector('.state').textContent = state;
  updateControls(node);
}

/**
 * A chat: its title, the line counting earlier messages, its messages, and a box to write as the
 * customer, folded behind a button (a page of many chats stays short); opening it puts the
 * keyboard in the box, and it stays open after a message is sent.
 */
export function createChat(chat) {
  const text = el('textarea', { name: 'text', required: '', rows: '2', maxlength: '4096' });
  const form = el(
    'form',
    {
      class: 'compose',
      hidden: '',
      onsubmit: (event) => {
        event.preventDefault();
        const { channel_id, chat_id, chat_type } = chat;
        clearWhen(
          act('inbound', { channel_id, chat_id, chat_type, text: text.value }, event.submitter),
          text,
        );
      },
    },
    el('label', {}, 'Message from the customer', text),
    el('div', { class: 'actions' }, el('button', { type: 'submit', text: 'Send as the customer' })),
  );
  const write = el('button', {
    type: 'button',
    class: 'write',
    'aria-expanded': 'false',
    text: 'Write as the customer',
    onclick: () => {
      const open = form.hidden;
      form.hidden = !open;
      write.setAttribute('aria-expanded', String(open));
      if (open) text.focus();
    },
  });
  return el(
    'article',
    { class: 'chat', 'data-chat': chat.chat_id },
    el('h3'),
    el(
      'p',
      { class: 'window', hidden: '' },
      el('span', { class: 'label', text: 'Conversation window: ' }),
      el('span', { class: 'window-state' }),
    ),
    el('p', { class: 'earlier', hidden: '' }),
    el('ol', { class: 'messages' }),
    write,
    form,
  );
}

const MINUTE = 60_000;

/**
 * A chat's conversation window in words, at `now`: `open for 23 h` (minutes under an hour, days
 * from two days), else what would open it: `closed: send a template` (wapi), `closed: the
 * customer must write first` (instagram); empty for a chat without a window.
 */
export function windowText(transport, closesAt, now) {
  if (!transport) return '';
  if (closesAt !== null && closesAt > now) {
    const minutes = Math.floor((closesAt - now) / MINUTE);
    if (minutes >= 48 * 60) return `open for ${Math.floor(minutes / (24 * 60))} days`;
    return minutes >= 60 ? `open for ${Math.floor(minutes / 60)} h` : `open for ${minutes} min`;
  }
  return transport === 'wapi' ? 'closed: send a template' : 'closed: the customer must write first';
}

/** Shows the window of `chat` (its entry's `window` and `windowClosesAt`) in its node, as of now. */
export function updateWindow(node, chat) {
  const line = node.querySelector('.window');
  const text = windowText(chat.window, chat.windowClosesAt, Date.now());
  line.hidden = text === '';
  line.dataset.open = String(text.startsWith('open'));
  const state = line.querySelector('.window-state');
  if (state.textContent !== text) state.textContent = text;
}

byId('new-chat').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const { channel_id, chat_id, text } = form.elements;
  const body = { channel_id: channel_id.value, chat_id: chat_id.value, text: text.value };
  clearWhen(act('inbound', body, event.submitter), text);
});
