import { isRecord } from '../../internal/is-record.js';
import { TEXT_LIMITS } from '../../schemas/constants.js';
import { FAILURE_REASONS } from '../../schemas/reasons.js';
import type { DeliveryRecord } from '../deliveries.js';
import type { FakeGatewaySimulate } from '../simulate.js';

/** A refused action: the page shows `message`. */
export class ActionError extends Error {
  constructor(
    readonly status: 400 | 409,
    message: string,
  ) {
    super(message);
  }
}

/** The statuses the page's buttons set. */
const STATUSES = new Set(['sent', 'delivered', 'read', 'failed']);
const REASONS = new Set<string>(FAILURE_REASONS);

function text(body: Record<string, unknown>, key: string, max = 200): string {
  const value = body[key];
  if (typeof value !== 'string' || value === '' || value.length > max) {
    throw new ActionError(400, `${key}: a text of 1..${max} characters`);
  }
  return value;
}

const optional = (body: Record<string, unknown>, key: string) =>
  body[key] === undefined || body[key] === '' ? undefined : text(body, key);

/** The page's actions, each a call of the fake's `simulate`, by the last segment of its path. */
export const ACTIONS: Record<
  string,
  (simulate: FakeGatewaySimulate, body: unknown) => Promise<DeliveryRecord[]>
> = {
  scan(simulate, body) {
    if (!isRecord(body)) throw new ActionError(400, 'the body must be a JSON object');
    const password = optional(body, 'password');
    const foreignPhone = body.foreign_phone === true;
    return simulate.scan(text(body, 'channel_id'), {
      ...(password !== undefined && { password }),
      foreignPhone,
    });
  },
  status(simulate, body) {
    if (!isRecord(body)) throw new ActionError(400, 'the body must be a JSON object');
    const status = text(body, 'status');
    if (!STATUSES.has(status)) throw new ActionError(400, `status: one of ${[...STATUSES].join(', ')}`);
    const reason = status === 'failed' ? (optional(body, 'reason') ?? 'unknown_error') : null;
    if (reason !== null && !REASONS.has(reason))
      throw new ActionError(400, 'reason: a failure reason of the spec');
    return simulate.status(text(body, 'request_id'), status, reason);
  },
  inbound(simulate, body) {
    if (!isRecord(body)) throw new ActionError(400, 'the body must be a JSON object');
    const chat_type = optional(body, 'chat_type') ?? 'whatsapp';
    // As long as the chat type's messenger allows (the limits sends are checked against).
    const message = text(body, 'text', TEXT_LIMITS[chat_type] ?? TEXT_LIMITS.whatsapp);
    return simulate.inbound({
      channel_id: text(body, 'channel_id'),
      chat_id: text(body, 'chat_id'),
      chat_type,
      text: message,
    });
  },
};
