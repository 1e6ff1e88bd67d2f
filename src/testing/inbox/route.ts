import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FAILURE_REASONS } from '../../schemas/reasons.js';
import { SecretMatcher } from '../../webhooks/receive/secret-matcher.js';
import { json, readJson } from '../http-utils.js';
import type { FakeGatewaySimulate } from '../simulate.js';
import { ACTIONS, ActionError } from './actions.js';
import { INBOX_FILES } from './assets.js';
import { refusal } from './guard.js';
import type { LiveUpdates } from './live-updates.js';
import type { DeliveryDetail } from './log-lines.js';

/** Where the page's own files, events and actions live; `/` is the page. */
export const INBOX_PREFIX = '/_inbox/';
/** Largest action body read (bytes): a customer's text and a few ids. */
const MAX_ACTION_BYTES = 64 * 1024;

// The page loads only its own script and style, shows QR codes from data URLs, talks only to the
// fake, and may not be framed (no clickjacking of its buttons).
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src data:; connect-src 'self'; " +
    "form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'inbox.css': 'text/css; charset=utf-8',
  'inbox.js': 'text/javascript; charset=utf-8',
  'inbox-live.js': 'text/javascript; charset=utf-8',
  'inbox-log.js': 'text/javascript; charset=utf-8',
};

type Asset = keyof typeof INBOX_FILES;
/** The path of an opened line of the log: `log/<its number>`. */
const LOG_LINE = /^log\/[1-9][0-9]{0,15}$/;

function file(res: ServerResponse, name: Asset, text: string): void {
  res.writeHead(200, {
    ...PAGE_HEADERS,
    'content-type': TYPES[name] as string,
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** What the inbox page reads of the fake. */
export interface InboxSources {
  /** What the page's buttons do (as the customer, or the service). */
  simulate: FakeGatewaySimulate;
  /** The page's event stream of what changed. */
  live: LiveUpdates;
  /** The delivery of an opened log line, while the fake holds it. */
  detail: (lineId: number) => DeliveryDetail | undefined;
  /** The fake's port, once it listens (the Host and Origin the page must send). */
  port: () => number;
}

/** The inbox page's routes on the fake gateway's server (they bypass the API's records and limits). */
export function inboxRoutes({ simulate, live, detail, port }: InboxSources) {
  // Per gateway: only a page served by this fake (same origin) can read it and send actions.
  const pageToken = randomUUID();
  const token = new SecretMatcher(pageToken); // compared in constant time
  // The failure reasons offered are the spec's own list (the one the status action accepts).
  const page = INBOX_FILES['index.html']
    .replace('{{PAGE_TOKEN}}', pageToken)
    .replace('{{FAILURE_REASONS}}', FAILURE_REASONS.join(' '));
  const act = async (req: IncomingMessage, res: ServerResponse, name: string) => {
    // own keys only: `constructor` or `toString` from the path is no action
    const action = Object.hasOwn(ACTIONS, name) ? ACTIONS[name] : undefined;
    if (!action) return json(res, 404, { error: 'no such inbox action' });
    let body: unknown;
    try {
      body = await readJson(req, MAX_ACTION_BYTES);
    } catch {
      return json(res, 400, { error: `the body must be JSON of at most ${MAX_ACTION_BYTES} bytes` });
    }
    try {
      const made = await action(simulate, body);
      json(res, 200, { deliveries: made.map(({ kind, status }) => ({ kind, status })) });
    } catch (error) {
      // simulate refuses an unknown id or a channel not waiting for a scan: the state conflicts
      const status = error instanceof ActionError ? error.status : 409;
      json(res, status, { error: error instanceof Error ? error.message : 'refused' });
    }
  };

  /** Answers `req` when it is the inbox's; false leaves it to the API. */
  return function route(req: IncomingMessage, res: ServerResponse, url: URL): boolean | Promise<void> {
    const { pathname } = url;
    if (pathname !== '/' && !pathname.startsWith(INBOX_PREFIX)) return false;
    const name = pathname.slice(INBOX_PREFIX.length);
    const isAction = req.method === 'POST';
    const refused = refusal(req, port(), token, isAction);
    if (refused) {
      json(res, 403, { error: refused });
      return true;
    }
    if (isAction) return act(req, res, name);
    // HEAD is a GET whose body Node leaves out; it opens no event stream
    const head = req.method === 'HEAD';
    if (req.method !== 'GET' && !head) json(res, 405, { error: 'GET, HEAD or POST' });
    else if (pathname === '/') file(res, 'index.html', page);
    else if (Object.hasOwn(TYPES, name) && name !== 'index.html')
      file(res, name as Asset, INBOX_FILES[name as Asset]);
    else if (name === 'events' && head) json(res, 405, { error: 'GET: an event stream' });
    else if (name !== 'events' && !LOG_LINE.test(name)) json(res, 404, { error: 'not found' });
    // the page's data (texts, bodies, answers) goes only to the page that holds the token
    else if (!token.matches(url.searchParams.get('t')))
      json(res, 403, { error: 'the page token is missing or wrong' });
    else if (name === 'events') live.listen(res);
    else {
      const found = detail(Number(name.slice('log/'.length)));
      json(res, found ? 200 : 404, found ?? { error: 'the fake no longer holds this delivery' });
    }
    return true;
  };
}
