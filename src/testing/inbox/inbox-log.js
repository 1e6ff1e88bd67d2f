// The inbox page's log of deliveries: each line says what was delivered and the receiver's answer
// (`message.status_update delivered · "Your order #1042…" → 200`), and opens to show the whole
// body sent and the answer, which the page asks the fake for when the line is opened (the updates
// carry only the lines). Texts go in with textContent, never as HTML.
import { el, PAGE_TOKEN } from './inbox.js';

/** Why no answer came, in words (the fake's `failure`). */
const FAILURES = {
  dropped: 'dropped: the fake already held too many deliveries for this receiver',
  timedOut: 'timed out: no answer within the reply time-out',
  connection: 'no answer: the connection was refused or reset',
  closed: 'abandoned: the fake closed',
};

/** A status code of the log: the answer, `…` while awaited, or why none came. */
export function code(status, failure) {
  const text = status === null ? '…' : status === 0 ? (FAILURES[failure] ?? 'no answer') : String(status);
  return el('span', { class: `code${status === 0 || status >= 400 ? ' bad' : ''}`, text });
}

/** The verdict on the reply to a CRM request: null for any other delivery. */
function verdict(issues) {
  if (!issues) return [];
  const ok = issues.length === 0;
  const text = ok ? 'reply ok' : `reply wrong: ${issues.join('; ')}`;
  return [' · ', el('span', { class: `reply ${ok ? 'ok' : 'bad'}`, text })];
}

/** The whole of an opened line: the address, the body sent, the answer and the verdict. */
function detailOf(d) {
  const ok = d.replyIssues?.length === 0;
  const answer =
    d.status === null
      ? 'waiting for the answer…'
      : d.status === 0
        ? (FAILURES[d.failure] ?? 'no answer')
        : `${d.status}${d.answer ? `\n${d.answer}` : ''}`;
  return [
    el('p', { class: 'meta', text: `POST ${d.url}` }),
    el('h4', { text: 'Body' }),
    el('pre', { text: d.body }),
    el('h4', { text: "The receiver's answer" }),
    el('pre', { text: answer }),
    ...(d.replyIssues
      ? [
          el('p', {
            class: `reply ${ok ? 'ok' : 'bad'}`,
            text: ok
              ? 'The reply is what the spec asks for.'
              : `The reply is not what the spec asks for: ${d.replyIssues.join('; ')}`,
          }),
        ]
      : []),
  ];
}

/** Shows the whole of an opened line, asked of the fake; a later ask wins over an earlier one. */
async function load(details) {
  const box = details.querySelector('.detail');
  const ask = String(Number(details.dataset.ask ?? 0) + 1);
  details.dataset.ask = ask;
  const show = (...parts) => {
    if (details.dataset.ask === ask) box.replaceChildren(...parts);
  };
  show(el('p', { class: 'meta', text: 'loading…' }));
  try {
    const res = await fetch(`/_inbox/log/${details.dataset.id}?t=${encodeURIComponent(PAGE_TOKEN)}`);
    if (res.ok) show(...detailOf(await res.json()));
    else
      show(
        el('p', {
          class: 'meta',
          text: res.status === 404 ? 'no longer kept by the fake' : `not shown (${res.status})`,
        }),
      );
  } catch {
    show(el('p', { class: 'meta', text: 'the fake gateway did not answer' }));
  }
}

/** A delivery's line: a summary that opens to the whole of it. */
export function createDeliveryLine() {
  const details = el(
    'details',
    { ontoggle: () => details.open && load(details) },
    el('summary'),
    el('div', { class: 'detail' }),
  );
  return el('li', {}, details);
}

/** Shows delivery `d` in its line; an open line shows the answer once it came. */
export function updateDeliveryLine(line, d) {
  const details = line.firstElementChild;
  const what = d.what ? ` ${d.what}` : '';
  const summary = `${d.api === 'v3' ? 'v3 ' : ''}${d.kind}${what}${d.repeat ? ' (repeat)' : ''} → `;
  details.firstElementChild.replaceChildren(summary, code(d.status, d.failure), ...verdict(d.replyIssues));
  details.dataset.id = String(d.id);
  const status = String(d.status);
  if (details.open && details.dataset.status !== status) load(details);
  details.dataset.status = status;
}
