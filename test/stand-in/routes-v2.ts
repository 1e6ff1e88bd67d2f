import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { asObject, envelope, fail } from './http-utils.js';
import type { StandInState } from './state.js';

/** One parsed request, as the routes see it. */
export interface RouteRequest {
  method: string;
  segments: string[];
  query: URLSearchParams;
  body: unknown;
}

const CONTENT = ['text', 'attachment', 'template'];
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

/** Hooks the stand-in calls after a change, to deliver webhooks. */
export interface V2Effects {
  messageSent(message: {
    request_id: string;
    message_id: string;
    chat_id: string;
    body: Record<string, unknown>;
  }): void;
  channelCreated(channelId: string, transport: string): void;
}

/** API v2: messages, channels, webhook subscriptions (spec: Endpoints). */
export function routeV2(
  req: RouteRequest,
  res: ServerResponse,
  state: StandInState,
  effects: V2Effects,
): boolean {
  const [area, id, action, sub] = req.segments;
  const body = asObject(req.body) ?? {};
  if (area === 'messages') return messages(req, res, state, effects, id, body);
  if (area === 'channels') return channels(req, res, state, effects, id, action, sub, body);
  if (area === 'webhooks' && id === undefined) return webhooks(req, res, state, body);
  return false;
}

function messages(
  req: RouteRequest,
  res: ServerResponse,
  state: StandInState,
  effects: V2Effects,
  id: string | undefined,
  body: Record<string, unknown>,
): boolean {
  if (req.method === 'POST' && id === undefined) {
    if (CONTENT.filter((k) => body[k] !== undefined).length > 1) {
      fail(res, 400, 'bad_request', 'Cannot provide more that one of text, attachment or template');
      return true;
    }
    const recipient = asObject(body.recipient);
    if (typeof body.channel_id !== 'string' || !recipient) {
      fail(res, 400, 'bad_request', 'channel_id and recipient are required');
      return true;
    }
    const chatId = String(recipient.chat_id ?? recipient.phone ?? recipient.username ?? randomUUID());
    const message = { request_id: randomUUID(), message_id: randomUUID(), chat_id: chatId, body };
    state.messages.set(message.message_id, { ...message, channel_id: body.channel_id });
    envelope(res, { request_id: message.request_id, chat_id: chatId });
    effects.messageSent(message);
    return true;
  }
  if (req.method === 'POST' && id === 'messages_dump') {
    envelope(res, { task_id: randomUUID() });
    return true;
  }
  if ((req.method === 'PATCH' || req.method === 'DELETE') && id !== undefined) {
    const stored = state.messages.get(id);
    if (!stored) {
      fail(res, 404, 'not_found', 'message not found');
      return true;
    }
    if (req.method === 'PATCH' && body.text === undefined && body.attachment === undefined) {
      fail(res, 400, 'bad_request', 'text or attachment is required');
      return true;
    }
    if (req.method === 'DELETE') state.messages.delete(id);
    envelope(res, { message_id: id, chat_id: stored.chat_id });
    return true;
  }
  return false;
}

function channels(
  req: RouteRequest,
  res: ServerResponse,
  state: StandInState,
  effects: V2Effects,
  id: string | undefined,
  action: string | undefined,
  sub: string | undefined,
  body: Record<string, unknown>,
): boolean {
  if (id === undefined) {
    if (req.method === 'GET') {
      envelope(res, [...state.channels.values()]);
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
    const channel = state.addChannel(body.transport);
    envelope(res, [
      {
        channel_id: channel.channel_id,
        transport: channel.transport,
        ...(channel.url && { url: channel.url }),
      },
    ]);
    effects.channelCreated(channel.channel_id, channel.transport);
    return true;
  }
  const channel = state.channels.get(id);
  if (!channel) {
    fail(res, 404, 'not_found', 'channel not found');
    return true;
  }
  if (action === undefined && req.method === 'GET') envelope(res, [channel]);
  else if (action === undefined && req.method === 'DELETE') {
    state.channels.delete(id);
    envelope(res, null);
  } else if (action === 'auth' && sub === '2fa' && req.method === 'POST') {
    Object.assign(channel, { status: 'active', reason: null, state: 'active' });
    envelope(res, null);
  } else if (action === 'reinit' && req.method === 'POST') {
    const { channel_id, transport, state: s, phone, messenger_id, name } = channel;
    envelope(res, [{ channel_id, transport, state: s, phone, messenger_id, name, tariff: 'standard' }]);
  } else if (action === 'pairing-code' && req.method === 'POST') {
    envelope(res, [{ pairing_code: 'K7WQ2M9X', pairing_phone: body.pairing_phone ?? channel.phone }]);
  } else return false;
  return true;
}

function webhooks(
  req: RouteRequest,
  res: ServerResponse,
  state: StandInState,
  body: Record<string, unknown>,
): boolean {
  const items = Array.isArray(body.data) ? (body.data as Record<string, string>[]) : [];
  if (req.method === 'GET') envelope(res, [...state.subscriptions.values()]);
  else if (req.method === 'POST') {
    const created = items.map((i) => ({ id: randomUUID(), url: i.url as string, event: i.event as string }));
    for (const s of created) state.subscriptions.set(s.id, s);
    envelope(res, created);
  } else if (req.method === 'PATCH') {
    const missing = items.find((i) => !state.subscriptions.has(i.id as string));
    if (missing) {
      fail(res, 404, 'not_found', `subscription ${missing.id} not found`);
      return true;
    }
    const changed = items.map((i) => ({
      id: i.id as string,
      url: i.url as string,
      event: i.event as string,
    }));
    for (const s of changed) state.subscriptions.set(s.id, s);
    envelope(res, changed);
  } else if (req.method === 'DELETE') {
    for (const i of items) state.subscriptions.delete(i.id as string);
    envelope(res, null);
  } else return false;
  return true;
}
