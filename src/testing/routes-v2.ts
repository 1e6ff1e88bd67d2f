import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { asObject, envelope, fail } from './http-utils.js';
import { MAX_SUBSCRIPTIONS, sendProblem, subscriptionProblem } from './service-rules.js';
import type { FakeChannel, FakeMessage, FakeState } from './state.js';

/** One parsed request, as the routes see it. */
export interface RouteRequest {
  method: string;
  segments: string[];
  query: URLSearchParams;
  body: unknown;
}

/** What happens after a change: webhook deliveries, by default. */
export interface V2Effects {
  messageSent(message: FakeMessage): void;
  /** An edit was accepted; `old` is the body before it. */
  messageEdited(message: FakeMessage, old: Record<string, unknown>): void;
  messageDeleted(message: FakeMessage): void;
  channelCreated(channel: FakeChannel): void;
  channelDeleted(channelId: string): void;
  channelReinit(channel: FakeChannel): void;
  channelActivated(channel: FakeChannel): void;
}

/** A channel as the API answers it: without what the fake keeps for itself. */
const shown = ({ password: _p, qr: _qr, ...channel }: FakeChannel) => channel;

/** Everything a route needs. */
export interface RouteContext {
  req: RouteRequest;
  res: ServerResponse;
  state: FakeState;
  effects: V2Effects;
  body: Record<string, unknown>;
}

// spec: POST /v2/channels — written here again on purpose: the fake shares no rule with the SDK.
const TRANSPORTS = [
  'telegram',
  'tgapi',
  'vk',
  'wapi',
  'whatsapp',
  'instAPI',
  'viber',
  'avito',
  'max',
  'maxbot',
];

/**
 * API v2: messages, channels, webhook subscriptions (spec: Endpoints). The fake checks only what
 * the service itself is documented to refuse; it shares no rule with the SDK's own validation, so
 * a gap in the SDK shows up as a difference.
 */
export function routeV2(
  req: RouteRequest,
  res: ServerResponse,
  state: FakeState,
  effects: V2Effects,
): boolean {
  const ctx: RouteContext = { req, res, state, effects, body: asObject(req.body) ?? {} };
  const [area, id] = req.segments;
  if (area === 'messages') return messages(ctx, id);
  if (area === 'channels') return id === undefined ? channelList(ctx) : channel(ctx, id);
  if (area === 'webhooks' && id === undefined) return webhooks(ctx);
  return false;
}

function send({ res, state, effects, body }: RouteContext): true {
  const problem = sendProblem(body);
  if (problem) {
    fail(res, 400, 'bad_request', problem);
    return true;
  }
  const channel = state.channels.get(body.channel_id as string);
  if (!channel) {
    fail(res, 404, 'not_found', 'channel not found');
    return true;
  }
  if (channel.status !== 'active') {
    fail(res, 400, 'bad_request', `the channel is not active (${channel.status}/${channel.reason})`);
    return true;
  }
  const recipient = asObject(body.recipient) ?? {};
  const chatId = String(recipient.chat_id ?? recipient.phone ?? recipient.username);
  const message: FakeMessage = {
    request_id: randomUUID(),
    message_id: randomUUID(),
    chat_id: chatId,
    channel_id: channel.channel_id,
    status: 'accepted',
    reason: null,
    sentAt: Date.now(),
    failsWith: state.windows.failureOf(channel, chatId, body, Date.now()),
    body,
  };
  state.addMessage(message);
  envelope(res, { request_id: message.request_id, chat_id: chatId });
  effects.messageSent(message);
  return true;
}

function messages(ctx: RouteContext, id: string | undefined): boolean {
  const { req, res, state, body, effects } = ctx;
  if (req.method === 'POST' && id === undefined) return send(ctx);
  if (req.method === 'POST' && id === 'messages_dump') {
    envelope(res, { task_id: randomUUID() });
    return true;
  }
  if ((req.method !== 'PATCH' && req.method !== 'DELETE') || id === undefined) return false;
  const stored = state.messages.get(id);
  if (!stored) fail(res, 404, 'not_found', 'message not found');
  else if (req.method === 'PATCH' && body.text === undefined && body.attachment === undefined) {
    fail(res, 400, 'bad_request', 'text or attachment is required');
  } else if (req.method === 'PATCH') {
    const old = stored.body;
    stored.body = { ...old, ...body };
    envelope(res, { message_id: id, chat_id: stored.chat_id });
    effects.messageEdited(stored, old);
  } else {
    state.messages.delete(id);
    envelope(res, { message_id: id, chat_id: stored.chat_id });
    effects.messageDeleted(stored);
  }
  return true;
}

function channelList({ req, res, state, effects, body }: RouteContext): boolean {
  if (req.method === 'GET') {
    envelope(res, [...state.channels.values()].map(shown));
    return true;
  }
  if (req.method !== 'POST') return false;
  if (
    typeof body.transport !== 'string' ||
    !TRANSPORTS.includes(body.transport) ||
    !asObject(body.credentials)
  ) {
    fail(res, 400, 'bad_request', 'transport and credentials are required');
    return true;
  }
  const created = state.addChannel(body.transport);
  const { channel_id, transport, url } = created;
  envelope(res, [{ channel_id, transport, ...(url && { url }) }]);
  effects.channelCreated(created);
  return true;
}

function channel({ req, res, state, effects, body }: RouteContext, id: string): boolean {
  const [, , action, sub] = req.segments;
  const found = state.channels.get(id);
  if (!found) {
    fail(res, 404, 'not_found', 'channel not found');
    return true;
  }
  if (action === undefined && req.method === 'GET') envelope(res, [shown(found)]);
  else if (action === undefined && req.method === 'DELETE') {
    state.channels.delete(id);
    envelope(res, null);
    effects.channelDeleted(id);
  } else if (action === 'auth' && sub === '2fa' && req.method === 'POST') {
    // spec: 2FA — only a channel waiting for its password takes one; a wrong code is refused
    if (found.status !== 'init' || found.reason !== 'wait_for_password') {
      fail(res, 400, 'bad_request', `the channel is not waiting for a 2FA password (${found.status})`);
      return true;
    }
    if (found.password !== undefined && body.two_factor_code !== found.password) {
      fail(res, 400, 'bad_request', 'wrong two-factor code');
      return true;
    }
    found.password = undefined;
    envelope(res, null);
    effects.channelActivated(found);
  } else if (action === 'reinit' && req.method === 'POST') {
    effects.channelReinit(found);
    const { channel_id, transport, state: s, phone, messenger_id, name } = found;
    envelope(res, [{ channel_id, transport, state: s, phone, messenger_id, name, tariff: 'standard' }]);
  } else if (action === 'pairing-code' && req.method === 'POST') {
    // spec: pairing code — whatsapp only, right after the QR webhook; refused once the QR expired
    if (found.transport !== 'whatsapp') {
      fail(res, 400, 'bad_request', 'a pairing code is given only for a whatsapp channel');
      return true;
    }
    if (found.qr === undefined || found.status !== 'init' || found.reason !== 'qr') {
      fail(res, 400, 'bad_request', 'no live QR: the pairing code is asked right after the QR');
      return true;
    }
    envelope(res, [{ pairing_code: 'K7WQ2M9X', pairing_phone: body.pairing_phone ?? found.phone }]);
  } else return false;
  return true;
}

function webhooks({ req, res, state, body }: RouteContext): boolean {
  if (req.method === 'GET') {
    envelope(res, [...state.subscriptions.values()]);
    return true;
  }
  if (req.method !== 'POST' && req.method !== 'PATCH' && req.method !== 'DELETE') return false;
  // spec: POST, PATCH and DELETE /v2/webhooks — `data` (array) is required
  if (!Array.isArray(body.data)) {
    fail(res, 400, 'bad_request', 'data: an array is required');
    return true;
  }
  const items = body.data.map((i) => asObject(i) ?? {});
  if (req.method === 'DELETE') {
    for (const i of items) state.subscriptions.delete(String(i.id));
    envelope(res, null);
  } else changeSubscriptions(req.method, items, res, state);
  return true;
}

function changeSubscriptions(
  method: string,
  items: Record<string, unknown>[],
  res: ServerResponse,
  state: FakeState,
): void {
  const ids = new Set(items.map((i) => String(i.id)));
  const others = [...state.subscriptions.values()].filter((s) => method === 'POST' || !ids.has(s.id));
  const problem = subscriptionProblem(
    items,
    others.map((s) => s.event),
  );
  const unknown = method === 'PATCH' && items.some((i) => !state.subscriptions.has(String(i.id)));
  const tooMany = method === 'POST' && state.subscriptions.size + items.length > MAX_SUBSCRIPTIONS;
  if (problem) fail(res, 400, 'bad_request', problem);
  else if (unknown) fail(res, 404, 'not_found', 'subscription not found');
  else if (tooMany) fail(res, 400, 'bad_request', `at most ${MAX_SUBSCRIPTIONS} subscriptions per account`);
  else store(items, method, res, state);
}

function store(
  items: Record<string, unknown>[],
  method: string,
  res: ServerResponse,
  state: FakeState,
): void {
  const changed = items.map((i) => ({
    id: method === 'POST' ? randomUUID() : String(i.id),
    url: String(i.url),
    event: String(i.event),
  }));
  for (const s of changed) state.subscriptions.set(s.id, s);
  envelope(res, changed);
}
